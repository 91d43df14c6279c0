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

/** A {@code kdra} command in its own JVM, started from the test classpath; its stdout is read line by line. */
final class KdraProcess implements AutoCloseable {

    static final Duration PATIENCE = Duration.ofSeconds(60);

    private final Process process;
    private final Path stderr;
    private final BlockingQueue<String> stdout = new LinkedBlockingQueue<>();

    private KdraProcess(Process process, Path stderr) {
        this.process = process;
        this.stderr = stderr;
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(
                    new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                in.lines().forEach(stdout::add);
            } catch (IOException | UncheckedIOException e) {
                stdout.add("reading the command's output failed: " + e);
            }
        }, "kdra-process-stdout");
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * Starts {@code kdra} with the given arguments.
     *
     * @param stderr the file the command's stderr goes to
     */
    static KdraProcess start(Path stderr, List<String> args) throws IOException {
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        // A build started as a background job of a non-interactive shell ignores SIGINT, and so would the command,
        // whose JVM then installs no handler for it: perl (essential on Debian) restores the default before it execs
        // the JVM, so that interrupt() is Ctrl-C however the build was started.
        List<String> command = new ArrayList<>(List.of("perl", "-e", "$SIG{INT} = 'DEFAULT'; exec @ARGV or die $!",
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp", classpath,
                Kdra.class.getName()));
        command.addAll(args);
        return new KdraProcess(new ProcessBuilder(command).redirectError(stderr.toFile()).start(), stderr);
    }

    /**
     * @return the next output line
     * @throws AssertionError with the command's stderr if no line comes
     */
    String nextLine() throws InterruptedException, IOException {
        String line = stdout.poll(PATIENCE.toSeconds(), TimeUnit.SECONDS);
        if (line == null) {
            throw new AssertionError("no further output line\nstderr:\n" + stderr());
        }
        return line;
    }

    /**
     * Skips output lines up to the one that starts with the prefix and returns the rest of that line.
     *
     * @throws AssertionError with the skipped output and the command's stderr if no such line comes
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

    /**
     * Sends SIGTERM and waits for the JVM to end. Unlike {@link Process#destroy()} this keeps the output pipe open,
     * so that what the command prints while stopping can still be read.
     *
     * @return the exit code
     */
    int terminate() throws InterruptedException, IOException {
        if (!process.toHandle().destroy()) {
            throw new AssertionError("could not send SIGTERM to the command");
        }
        if (!process.waitFor(PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
            throw new AssertionError("the command did not stop within " + PATIENCE + "; stderr:\n" + stderr());
        }
        return process.exitValue();
    }

    /**
     * Sends SIGINT, as Ctrl-C in a terminal does, and waits up to {@code patience} for the JVM to end.
     *
     * @return the exit code
     */
    int interrupt(Duration patience) throws InterruptedException, IOException {
        Process kill = new ProcessBuilder("kill", "-INT", Long.toString(process.pid())).inheritIO().start();
        if (kill.waitFor() != 0) {
            throw new AssertionError("could not send SIGINT to the command");
        }
        if (!process.waitFor(patience.toSeconds(), TimeUnit.SECONDS)) {
            throw new AssertionError("the command did not stop within " + patience + " of SIGINT (a JVM started with "
                    + "SIGINT ignored, as background jobs of a non-interactive shell are, keeps running); stderr:\n"
                    + stderr());
        }
        return process.exitValue();
    }

    /** Waits for the command to end by itself and returns its exit code. */
    int waitFor() throws InterruptedException, IOException {
        if (!process.waitFor(PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
            throw new AssertionError("the command did not end within " + PATIENCE + "; stderr:\n" + stderr());
        }
        return process.exitValue();
    }

    /** The processes the command has started and that still run: a cluster's container processes, for example. */
    List<ProcessHandle> descendants() {
        return process.descendants().toList();
    }

    String stderr() throws IOException {
        return Files.exists(stderr) ? Files.readString(stderr) : "";
    }

    /** Kills the command if it still runs and waits until it is gone, so that it outlives neither test nor directory. */
    @Override
    public void close() throws InterruptedException {
        if (!process.destroyForcibly().waitFor(PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
            throw new AssertionError("the command did not end within " + PATIENCE + " of SIGKILL");
        }
    }
}
