package io.kdra.cli;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * How a long-running command ends. Ctrl-C (SIGINT), SIGTERM or a hang-up asks it to stop; the command then stops what
 * it started on its own thread, says so, and the JVM exits 0, as kube-apiserver and the upstream test driver do when
 * stopped. Installed before anything starts, so that a stop asked for during the start waits for the start to end and
 * then undoes it.
 *
 * <pre>{@code
 * try (UntilStopped stop = UntilStopped.install("kdra-x-stop", err)) {
 *     start();
 *     stop.await();       // returns at once if the stop was asked for during start()
 *     stopEverything();
 *     stop.stopped();     // the JVM now ends with exit code 0
 * }
 * }</pre>
 */
final class UntilStopped implements AutoCloseable {

    /** How long the JVM, once asked to stop, waits for the command to stop what it started. */
    private static final Duration STOP_PATIENCE = Duration.ofMinutes(2);

    private final CountDownLatch requested = new CountDownLatch(1);
    private final CountDownLatch finished = new CountDownLatch(1);
    private final PrintWriter err;
    private final Thread hook;
    private volatile int exitCode = 1;

    private UntilStopped(String threadName, PrintWriter err) {
        this.err = err;
        this.hook = new Thread(this::onShutdown, threadName);
    }

    static UntilStopped install(String threadName, PrintWriter err) {
        UntilStopped stop = new UntilStopped(threadName, err);
        Runtime.getRuntime().addShutdownHook(stop.hook);
        return stop;
    }

    /**
     * The JVM runs this when asked to stop: it lets the command stop, waits for it, then ends the JVM with the
     * command's exit code (a JVM ended by a signal would otherwise exit 128 + the signal number).
     */
    private void onShutdown() {
        requested.countDown();
        boolean done;
        try {
            done = finished.await(STOP_PATIENCE.toSeconds(), TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            done = false;
        }
        if (!done) {
            err.println("kdra: still stopping after " + STOP_PATIENCE.toMinutes() + " minutes; exiting anyway,"
                    + " processes and directories may be left behind");
            err.flush();
        }
        System.out.flush();
        System.err.flush();
        Runtime.getRuntime().halt(done ? exitCode : 1);
    }

    /** Whether Ctrl-C, SIGTERM or a hang-up has asked the command to stop. */
    boolean isRequested() {
        return requested.getCount() == 0;
    }

    /** Blocks until the command is asked to stop. */
    void await() throws InterruptedException {
        requested.await();
    }

    /** The command has stopped everything it started: the JVM will exit 0. */
    void stopped() {
        exitCode = 0;
    }

    /**
     * After a requested stop, lets the JVM end: with exit code 0 after {@link #stopped()}, else 1. Without one, removes
     * the hook so that the command ends as it would have without this.
     */
    @Override
    public void close() {
        if (!isRequested()) {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
                return;
            } catch (IllegalStateException shuttingDown) {
                // the stop was asked for just now: let the hook end the JVM
            }
        }
        finished.countDown();
    }
}
