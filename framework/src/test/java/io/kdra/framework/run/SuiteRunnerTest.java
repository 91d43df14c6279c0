package io.kdra.framework.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.kdra.framework.run.SpecResult.Status;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;

/** The runner on sample spec classes: selection, results, reports. */
class SuiteRunnerTest {

    private final SuiteRunner runner = new SuiteRunner("io.kdra.framework.run.samples", ".*Sample");

    @Test
    void aDryRunListsTheSelectedSpecsWithTheirSkipReasons() {
        List<PlannedSpec> planned = runner.plan(SpecSelection.ALL);

        assertThat(planned).extracting(PlannedSpec::name).containsExactlyInAnyOrder(
                "[sig-node] [DRA] samples passes", "[sig-node] [DRA] samples slow one [Slow]",
                "[sig-node] [DRA] samples not ported", "[sig-node] [DRA] failing samples fails",
                "[sig-node] [DRA] failing samples needs nodes", "[sig-node] [DRA] failing samples runs alone [Serial]");
        assertThat(planned).filteredOn(spec -> spec.name().endsWith("not ported")).singleElement()
                .extracting(PlannedSpec::disabledReason).isEqualTo(java.util.Optional.of("not ported yet: needs a piece"));
        assertThat(planned).filteredOn(spec -> spec.name().endsWith("passes")).singleElement()
                .extracting(PlannedSpec::labels).isEqualTo(List.of("sig-node", "DRA"));
    }

    @Test
    void focusSkipAndLabelFilterSelectAsGinkgo() {
        SpecSelection selection = new SpecSelection(List.of(Pattern.compile("samples")),
                List.of(Pattern.compile("needs")), LabelFilter.parse("!Slow"));

        assertThat(runner.plan(selection)).extracting(PlannedSpec::name).containsExactlyInAnyOrder(
                "[sig-node] [DRA] samples passes", "[sig-node] [DRA] samples not ported",
                "[sig-node] [DRA] failing samples fails", "[sig-node] [DRA] failing samples runs alone [Serial]");
    }

    @Test
    void aRunReportsEverySpecOnceWithItsState(@TempDir Path reports) throws Exception {
        List<String> progress = new CopyOnWriteArrayList<>();
        RunResult result = runner.run(SpecSelection.ALL, 2, new SuiteRunner.Listener() {
            @Override
            public void specFinished(SpecResult spec, int finished, int total) {
                progress.add(finished + "/" + total);
            }
        });

        Map<String, Status> states = result.specs().stream()
                .collect(Collectors.toMap(SpecResult::name, SpecResult::status));
        assertThat(states).containsEntry("[sig-node] [DRA] samples passes", Status.PASSED)
                .containsEntry("[sig-node] [DRA] samples not ported", Status.SKIPPED)
                .containsEntry("[sig-node] [DRA] failing samples fails", Status.FAILED)
                .containsEntry("[sig-node] [DRA] failing samples needs nodes", Status.SKIPPED)
                .containsEntry("[sig-node] [DRA] failing samples runs alone [Serial]", Status.PASSED)
                .hasSize(6);
        assertThat(result.summary()).isEqualTo("3 passed, 1 failed, 2 skipped");
        assertThat(progress).hasSize(6).contains("6/6");
        SpecResult failed = result.specs().stream().filter(spec -> spec.status() == Status.FAILED).findFirst()
                .orElseThrow();
        assertThat(failed.message()).contains("the answer");
        assertThat(failed.details()).contains("FailingSample.fails").doesNotContain("at org.junit.platform");

        RunReports.write(reports, "samples", result);
        Document junit = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(reports.resolve(RunReports.JUNIT_FILE).toFile());
        assertThat(junit.getElementsByTagName("testcase").getLength()).isEqualTo(6);
        assertThat(junit.getElementsByTagName("failure").getLength()).isEqualTo(1);
        assertThat(junit.getElementsByTagName("skipped").getLength()).isEqualTo(2);
        assertThat(Files.readString(reports.resolve(RunReports.HTML_FILE)))
                .contains("3 passed, 1 failed, 2 skipped", "[sig-node] [DRA] failing samples fails");
    }
}
