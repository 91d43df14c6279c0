package io.kdra.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class ApiServerCommandTest {

    @Test
    void helpListsEveryOption() {
        StringWriter out = new StringWriter();
        int code = new CommandLine(new Kdra()).setOut(new PrintWriter(out))
                .execute("cluster", "apiserver", "--help");
        assertThat(code).isZero();
        assertThat(out.toString()).contains("--port", "--kubeconfig", "--[no-]tls", "--kubernetes-version");
    }

    @Test
    void badVersionIsReportedWithoutStarting() {
        StringWriter err = new StringWriter();
        int code = new CommandLine(new Kdra()).setErr(new PrintWriter(err))
                .execute("cluster", "apiserver", "--kubernetes-version", "latest");
        assertThat(code).isNotZero();
        assertThat(err.toString()).contains("kubernetesVersion must look like <major>.<minor>, e.g. 1.34, got 'latest'");
    }
}
