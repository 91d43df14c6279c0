package io.kdra.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * {@code kdra driver kubelet-plugin} in its own JVM, started from the test classpath, with its directories under one
 * short directory: {@code reg}, {@code data} and {@code cdi}.
 */
final class StandaloneDriver implements AutoCloseable {

    static final Duration PATIENCE = Duration.ofSeconds(60);

    private final Process process;
    private final Path stderr;
    private final BlockingQueue<String> stdout = new LinkedBlockingQueue<>();

    private StandaloneDriver(Process process, Path stderr) {
        this.process = process;
        this.stderr = stderr;
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(
                    new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                in.lines().forEach(stdout::add);
            } catch (IOException | UncheckedIOException e) {
                stdout.add("reading the driver's output failed: " + e);
            }
        }, "standalone-driver-stdout");
        reader.setDaemon(true);
        reader.start();
    }

    /** Starts the driver for node {@code node-1} with the given kubeconfig and further flags. */
    static StandaloneDriver start(Path dir, Path kubeconfig, String... flags) throws IOException {
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", classpath, Kdra.class.getName(), "driver", "kubelet-plugin",
                "--node-name", "node-1", "--kubeconfig", kubeconfig.toString(),
                "--plugin-registration-path", dir.resolve("reg").toString(),
                "--datadir", dir.resolve("data").toString(),
                "--cdi-dir", dir.resolve("cdi").toString()));
        command.addAll(List.of(flags));
        Path stderr = dir.resolve("driver.err");
        return new StandaloneDriver(new ProcessBuilder(command).redirectError(stderr.toFile()).start(), stderr);
    }

    /**
     * Skips output lines up to the one that starts with the prefix and returns the rest of that line.
     *
     * @throws AssertionError with the skipped output and the driver's stderr if no such line comes
     */
    String valueOf(String prefix) throws InterruptedException, IOException {
        StringBuilder skipped = new StringBuilder();
        while (true) {
            String line = stdout.poll(PATIENCE.toSeconds(), TimeUnit.SECONDS);
            if (line == null) {
                throw new AssertionError("no output line starting with \"" + prefix + "\" after:" + skipped
                        + "\nstderr:\n" + stderr());
            }
            skipped.append('\n').append(line);
            if (line.startsWith(prefix)) {
                return line.substring(prefix.length());
            }
        }
    }

    Path registrationSocket() throws InterruptedException, IOException {
        return Path.of(valueOf("registration socket: "));
    }

    /**
     * Sends SIGTERM and waits for the JVM to end. Unlike {@link Process#destroy()} this keeps the output pipe open,
     * so that what the driver prints while stopping can still be read.
     *
     * @return the exit code
     */
    int terminate() throws InterruptedException, IOException {
        if (!process.toHandle().destroy()) {
            throw new AssertionError("could not send SIGTERM to the driver");
        }
        if (!process.waitFor(PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
            throw new AssertionError("the driver did not stop within " + PATIENCE + "; stderr:\n" + stderr());
        }
        return process.exitValue();
    }

    String stderr() throws IOException {
        return Files.exists(stderr) ? Files.readString(stderr) : "";
    }

    /** Kills the driver if it still runs and waits until it is gone, so that it outlives neither test nor directory. */
    @Override
    public void close() throws InterruptedException {
        if (!process.destroyForcibly().waitFor(PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
            throw new AssertionError("the driver did not end within " + PATIENCE + " of SIGKILL");
        }
    }
}
