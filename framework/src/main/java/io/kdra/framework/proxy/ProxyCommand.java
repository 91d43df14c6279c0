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
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The proxy of one socket in a node's proxy pod ({@code /hostpathplugin --endpoint=<socket>
 * --proxy-endpoint=tcp://:<port>}), run through {@code pods/exec} until closed and started again whenever it ends or
 * cannot start (the exec refused, the pod replaced), with upstream's back-off: 1 s doubling up to 30 s with up to as
 * much again of jitter, reset after 5 minutes without failure. Each failure is logged with where to look next. Closing
 * ends the exec, which kills the proxy, then removes the socket file, which the killed proxy leaves behind.
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
        this.runner = new Thread(this::runUntilClosed, "proxy " + pod.pod().nodeName() + " " + socket.getFileName());
        runner.setDaemon(true);
    }

    static ProxyCommand start(PodCommands pod, Path socket, int port) {
        ProxyCommand proxy = new ProxyCommand(pod, socket, port);
        proxy.runner.start();
        return proxy;
    }

    private void runUntilClosed() {
        Duration backoff = FIRST_BACKOFF;
        int failures = 0;
        while (!closed) {
            Instant started = Instant.now();
            String outcome;
            String podName = pod.pod().lastName();
            try {
                podName = pod.pod().name();
                LogOutput output = new LogOutput(podName);
                try (ExecWatch watch = pod.start(podName, output, command)) {
                    current = watch;
                    if (closed) {
                        return;
                    }
                    if (failures > 0) {
                        LOG.info("the proxy of {} runs again in pod {} after {} failure(s)", socket, podName,
                                failures);
                        failures = 0;
                    }
                    outcome = "exited with " + waitForExit(watch) + output.lastLine();
                } finally {
                    current = null;
                }
            } catch (IOException | RuntimeException e) {
                outcome = "could not start: " + reasons(e);
            }
            if (closed) {
                return;
            }
            failures++;
            if (Duration.between(started, Instant.now()).compareTo(BACKOFF_RESET) > 0) {
                backoff = FIRST_BACKOFF;
            }
            long delay = backoff.toMillis() + ThreadLocalRandom.current().nextLong(backoff.toMillis() + 1);
            LOG.warn("the proxy of {} in pod {}/{} on node {} {}; starting it again in {} ms. If this repeats, look at "
                    + "`kubectl -n {} describe pod {}` (is it running? replaced?), `kubectl -n {} get events`, and "
                    + "whether this user may create pods/exec", socket, pod.pod().namespace(), podName,
                    pod.pod().nodeName(), outcome, delay, pod.pod().namespace(), podName, pod.pod().namespace());
            try {
                Thread.sleep(delay);
            } catch (InterruptedException e) {
                return;
            }
            backoff = backoff.multipliedBy(2).compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : backoff.multipliedBy(2);
        }
    }

    /** The messages of an error and its causes: fabric8 says only "An error has occurred." for a refused exec. */
    private static String reasons(Throwable error) {
        StringBuilder reasons = new StringBuilder(String.valueOf(error.getMessage()));
        for (Throwable cause = error.getCause(); cause != null && cause != cause.getCause(); cause = cause.getCause()) {
            reasons.append(" <- ").append(cause.getMessage() != null ? cause.getMessage() : cause.toString());
        }
        return reasons.toString();
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
            LOG.warn("removing socket {} in the proxy pod on node {} failed: {}", socket, pod.pod().nodeName(),
                    e.getMessage());
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
