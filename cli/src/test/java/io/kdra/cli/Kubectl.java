package io.kdra.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/** The real kubectl on the PATH, as a user runs it: {@code KUBECONFIG} set, output read after it ends. */
record Kubectl(Path kubeconfig, Path workDirectory) {

    static boolean onPath() {
        String path = System.getenv().getOrDefault("PATH", "");
        return Stream.of(path.split(File.pathSeparator)).filter(entry -> !entry.isEmpty())
                .map(entry -> Path.of(entry, "kubectl")).anyMatch(Files::isExecutable);
    }

    /** Runs kubectl, expects exit code 0 and returns its stdout. */
    String run(String... args) throws IOException, InterruptedException {
        Result result = tryRun(args);
        assertThat(result.code()).as("kubectl %s\nstdout:\n%s\nstderr:\n%s", String.join(" ", args), result.out(),
                result.err()).isZero();
        return result.out();
    }

    /**
     * Runs kubectl and returns its exit code, stdout and stderr. A run that dropped frames of an exec's WebSocket is
     * repeated, up to five times: kubectl before kubernetes/kubernetes#131203 (2025) reads the connection before it
     * has created its streams, and discards ("Unknown stream id") what a command that ends at once sends in between.
     */
    Result tryRun(String... args) throws IOException, InterruptedException {
        Result result;
        int attempt = 1;
        do {
            result = runOnce(args);
        } while (result.err().contains("Unknown stream id") && attempt++ < 5);
        return result;
    }

    private Result runOnce(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("kubectl"));
        command.addAll(List.of(args));
        Path out = Files.createTempFile(workDirectory, "kubectl", ".out");
        Path err = Files.createTempFile(workDirectory, "kubectl", ".err");
        try {
            ProcessBuilder builder = new ProcessBuilder(command).redirectInput(ProcessBuilder.Redirect.from(
                    new File("/dev/null"))).redirectOutput(out.toFile()).redirectError(err.toFile());
            builder.environment().put("KUBECONFIG", kubeconfig.toString());
            Process kubectl = builder.start();
            if (!kubectl.waitFor(KdraProcess.PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
                kubectl.destroyForcibly().waitFor();
                throw new AssertionError("kubectl " + String.join(" ", args) + " did not end within "
                        + KdraProcess.PATIENCE + "; stderr:\n" + Files.readString(err, StandardCharsets.UTF_8));
            }
            return new Result(kubectl.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                    Files.readString(err, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    record Result(int code, String out, String err) {
    }
}
