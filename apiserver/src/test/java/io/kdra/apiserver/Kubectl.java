package io.kdra.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The real kubectl on PATH, run against one kubeconfig, with its discovery and HTTP cache in the kubeconfig's directory
 * (not in {@code ~/.kube/cache}, where every test server's port would leave an entry behind).
 */
final class Kubectl {

    record Run(int exitValue, String output) {}

    /** kubectl 1.28 brought {@code wait --for=jsonpath} and {@code patch --subresource} to GA, which the tests use. */
    static final int MINIMUM_MINOR = 28;
    private static final Pattern GIT_VERSION = Pattern.compile("\"gitVersion\":\\s*\"(v1\\.(\\d+)[^\"]*)\"");
    private static volatile boolean onPathChecked;

    private final Path kubeconfig;

    Kubectl(Path kubeconfig) {
        if (!onPathChecked) {
            requireNewEnough("kubectl");
            onPathChecked = true;
        }
        this.kubeconfig = kubeconfig;
    }

    /**
     * Fails with a message naming the problem and the fix when the kubectl is missing or too old, rather than let
     * the tests fail one by one on commands it lacks.
     *
     * @param executable a path, or a name looked up on the PATH
     */
    static void requireNewEnough(String executable) {
        String fix = "; run .ci/ensure-kubectl (it prints a directory with a new enough kubectl to put first on the "
                + "PATH) or install kubectl 1." + MINIMUM_MINOR + " or newer";
        String output;
        try {
            Process process = new ProcessBuilder(executable, "version", "--client", "-o", "json")
                    .redirectErrorStream(true).start();
            process.getOutputStream().close();
            output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new AssertionError(executable + " version --client did not finish within 60 s" + fix);
            }
        } catch (IOException e) {
            throw new AssertionError("the tests need kubectl 1." + MINIMUM_MINOR + " or newer, and " + executable
                    + " does not run (" + e.getMessage() + ")" + fix, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        Matcher version = GIT_VERSION.matcher(output);
        if (!version.find()) {
            throw new AssertionError(executable + " does not report its version: " + output.trim() + fix);
        }
        if (Integer.parseInt(version.group(2)) < MINIMUM_MINOR) {
            throw new AssertionError(executable + " is kubectl " + version.group(1) + ", older than the 1."
                    + MINIMUM_MINOR + " the tests need" + fix);
        }
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

    /**
     * Runs kubectl; a run that lost frames to kubectl's own race ({@link #lostFramesOfItsOwnRace}) is repeated, up
     * to five times.
     */
    Run run(Object... args) {
        try {
            Run run;
            int attempt = 1;
            do {
                Process process = start(args);
                process.getOutputStream().close();
                String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
                run = new Run(process.exitValue(), out.trim());
            } while (lostFramesOfItsOwnRace(run.output()) && attempt++ < 5);
            return run;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * Whether kubectl dropped frames of an exec's WebSocket. kubectl before kubernetes/kubernetes#131203 (2025) reads
     * the connection before it has created its streams, and discards ("Unknown stream id") what arrives in between;
     * a kubelet that answers at once, as the tests' does, wins that race on a busy machine.
     */
    private static boolean lostFramesOfItsOwnRace(String output) {
        return output.contains("Unknown stream id");
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
