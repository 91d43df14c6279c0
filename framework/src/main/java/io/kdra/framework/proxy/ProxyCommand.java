package io.kdra.framework.proxy;

import io.fabric8.kubernetes.client.dsl.ExecWatch;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The proxy of one socket in a proxy pod ({@code /hostpathplugin --endpoint=<socket> --proxy-endpoint=tcp://:<port>}),
 * run through {@code pods/exec} until closed and started again when it ends, with upstream's back-off (1 s doubling up
 * to 30 s, reset after 5 minutes without failure). Closing ends the exec, which kills the proxy, then removes the
 * socket file, which the killed proxy leaves behind.
 */
final class ProxyCommand implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ProxyCommand.class);
    private static final Duration FIRST_BACKOFF = Duration.ofSeconds(1);
    private static final Duration MAX_BACKOFF = Duration.ofSeconds(30);
    private static final Duration BACKOFF_RESET = Duration.ofMinutes(5);

    private final PodCommands pod;
    private final Path socket;
    private final List<String> command;
    private final Thread runner;
    private volatile boolean closed;
    private volatile ExecWatch current;

    private ProxyCommand(PodCommands pod, Path socket, int port) {
        this.pod = pod;
        this.socket = socket;
        this.command = List.of("/hostpathplugin", "--v=5", "--endpoint=" + socket, "--proxy-endpoint=tcp://:" + port);
        this.runner = new Thread(this::runUntilClosed, "proxy " + pod.pod() + " " + socket.getFileName());
        runner.setDaemon(true);
    }

    static ProxyCommand start(PodCommands pod, Path socket, int port) {
        ProxyCommand proxy = new ProxyCommand(pod, socket, port);
        proxy.runner.start();
        return proxy;
    }

    private void runUntilClosed() {
        Duration backoff = FIRST_BACKOFF;
        while (!closed) {
            Instant started = Instant.now();
            String outcome;
            LogOutput output = new LogOutput(pod.pod());
            try (ExecWatch watch = pod.start(output, command)) {
                current = watch;
                if (closed) {
                    return;
                }
                outcome = "exited with " + waitForExit(watch) + output.lastLine();
            } catch (RuntimeException e) {
                outcome = "failed: " + e;
            } finally {
                current = null;
            }
            if (closed) {
                return;
            }
            if (Duration.between(started, Instant.now()).compareTo(BACKOFF_RESET) > 0) {
                backoff = FIRST_BACKOFF;
            }
            LOG.warn("the proxy of {} in pod {} {}; starting it again in {} ms", socket, pod.pod(), outcome,
                    backoff.toMillis());
            try {
                Thread.sleep(backoff.toMillis());
            } catch (InterruptedException e) {
                return;
            }
            backoff = backoff.multipliedBy(2).compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : backoff.multipliedBy(2);
        }
    }

    private static String waitForExit(ExecWatch watch) {
        try {
            return String.valueOf(watch.exitCode().get());
        } catch (ExecutionException e) {
            return "an error: " + e.getCause();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "an interrupt";
        }
    }

    /** Stops the proxy and removes its socket. */
    @Override
    public void close() {
        closed = true;
        ExecWatch watch = current;
        if (watch != null) {
            watch.close();
        }
        runner.interrupt();
        try {
            runner.join(TimeUnit.SECONDS.toMillis(30));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            pod.run("rm", "-f", socket.toString());
        } catch (IOException e) {
            LOG.warn("removing socket {} in pod {} failed: {}", socket, pod.pod(), e.getMessage());
        }
    }

    /** The proxy's output, line by line into the log, as upstream pipes it into the test log. */
    private static final class LogOutput extends OutputStream {
        private final String pod;
        private final StringBuilder line = new StringBuilder();
        private String last = "";

        LogOutput(String pod) {
            this.pod = pod;
        }

        /** The last line the proxy printed, for the warning when it ended. */
        synchronized String lastLine() {
            String pending = line.length() > 0 ? line.toString() : last;
            return pending.isEmpty() ? "" : " (" + pending + ")";
        }

        @Override
        public synchronized void write(int b) {
            if (b == '\n') {
                LOG.debug("{}: {}", pod, line);
                last = line.toString();
                line.setLength(0);
            } else {
                line.append((char) b);
            }
        }

        @Override
        public synchronized void write(byte[] bytes, int offset, int length) {
            for (String part : new String(bytes, offset, length, StandardCharsets.UTF_8).split("(?<=\n)")) {
                if (part.endsWith("\n")) {
                    line.append(part, 0, part.length() - 1);
                    LOG.debug("{}: {}", pod, line);
                    last = line.toString();
                    line.setLength(0);
                } else {
                    line.append(part);
                }
            }
        }
    }
}
