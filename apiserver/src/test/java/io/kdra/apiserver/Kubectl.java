package io.kdra.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The real kubectl on PATH, run against one kubeconfig, with its discovery and HTTP cache in the kubeconfig's directory
 * (not in {@code ~/.kube/cache}, where every test server's port would leave an entry behind).
 */
final class Kubectl {

    record Run(int exitValue, String output) {}

    private final Path kubeconfig;

    Kubectl(Path kubeconfig) {
        this.kubeconfig = kubeconfig;
    }

    /** Runs kubectl expecting it to succeed; returns what it printed, trimmed. */
    String succeeds(Object... args) {
        Run run = run(args);
        assertThat(run.exitValue()).as("kubectl %s: %s", List.of(args), run.output()).isZero();
        return run.output();
    }

    /** Runs kubectl expecting it to fail; returns what it printed. */
    String fails(Object... args) {
        Run run = run(args);
        assertThat(run.exitValue()).as("kubectl %s: %s", List.of(args), run.output()).isNotZero();
        return run.output();
    }

    Run run(Object... args) {
        try {
            Process process = start(args);
            process.getOutputStream().close();
            String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
            return new Run(process.exitValue(), out.trim());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Starts kubectl with its error output merged into its output. */
    Process start(Object... args) throws IOException {
        List<String> command = new ArrayList<>(List.of("kubectl", "--kubeconfig", kubeconfig.toString(),
                "--cache-dir", kubeconfig.resolveSibling("kubectl-cache").toString()));
        for (Object arg : args) {
            command.add(arg.toString());
        }
        return new ProcessBuilder(command).redirectErrorStream(true).start();
    }
}
