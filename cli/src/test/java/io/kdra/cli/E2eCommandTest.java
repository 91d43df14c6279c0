package io.kdra.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code kdra e2e} as a user runs it: selection, a real run on the embedded cluster, reports, bad options. */
class E2eCommandTest {

    private record Run(int code, String out, String err) {
    }

    private static Run kdra(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Kdra.commandLine().setOut(new PrintWriter(out)).setErr(new PrintWriter(err)).execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    @Test
    void aDryRunListsTheSelectedSpecsAndWhyDisabledOnesWouldBeSkipped() {
        Run all = kdra("e2e", "--dry-run");
        Run crud = kdra("e2e", "--dry-run", "--focus", "CRUD Tests", "--label-filter", "Conformance && !Alpha");

        assertThat(all.code()).isZero();
        assertThat(all.out()).contains("[sig-node] [DRA] kubelet [Feature:DynamicResourceAllocation] registers plugin\n",
                "(skipped: ");
        assertThat(crud.out()).contains("[sig-node] [DRA] CRUD Tests resource.k8s.io/v1 DeviceClass [Conformance]")
                .doesNotContain("registers plugin", "ResourcePoolStatusRequest");
        assertThat(crud.out().lines().reduce((first, second) -> second)).hasValueSatisfying(
                last -> assertThat(last).matches("\\d+ specs selected"));
    }

    @Test
    void aRunPrintsEachSpecAndTheSummaryAndWritesTheReports(@TempDir Path reports) throws Exception {
        Run run = kdra("e2e", "--focus", "registers plugin|ResourceSlice \\[Conformance\\]", "--report-dir",
                reports.toString());

        assertThat(run.code()).as(run.out() + run.err()).isZero();
        assertThat(run.out()).contains("running 2 specs on embedded clusters",
                "passed", "[sig-node] [DRA] kubelet [Feature:DynamicResourceAllocation] registers plugin");
        assertThat(run.out().strip()).endsWith("2 passed, 0 failed, 0 skipped");
        assertThat(Files.readString(reports.resolve("junit.xml"))).contains("tests=\"2\"", "failures=\"0\"");
        assertThat(reports.resolve("report.html")).exists();
    }

    @Test
    void badOptionsNameTheProblemAndRunNothing() {
        Run filter = kdra("e2e", "--label-filter", "DRA & Slow");
        Run focus = kdra("e2e", "--focus", "(unclosed");
        Run parallel = kdra("e2e", "--parallel", "0");
        Run kubeconfig = kdra("e2e", "--kubeconfig", "/nonexistent/kubeconfig");

        assertThat(filter.code()).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(filter.err()).contains("--label-filter", "did you mean '&&'");
        assertThat(focus.err()).contains("--focus '(unclosed' is not a regular expression");
        assertThat(parallel.err()).contains("--parallel must be at least 1");
        assertThat(kubeconfig.err()).contains("/nonexistent/kubeconfig is not a readable file");
        assertThat(filter.out() + focus.out() + parallel.out() + kubeconfig.out()).isEmpty();
    }

    @Test
    void aSelectionOfNothingSaysSoAndFailsOnlyWhenAskedTo() {
        Run nothing = kdra("e2e", "--focus", "no such spec");
        Run failing = kdra("e2e", "--focus", "no such spec", "--fail-on-empty");

        assertThat(nothing.code()).isZero();
        assertThat(nothing.out()).contains("no spec selected", "0 passed, 0 failed, 0 skipped");
        assertThat(failing.code()).isEqualTo(1);
    }
}
