package io.kdra.cli;

import java.io.PrintWriter;
import java.util.concurrent.CountDownLatch;
import java.util.function.Supplier;

/** How a long-running command waits: until Ctrl-C or SIGTERM, then it stops and says what it did. */
final class UntilStopped {

    private UntilStopped() {}

    /**
     * Tells the user how to stop, then blocks until the JVM is asked to stop.
     *
     * @param stop stops what the command started and returns the line to print; it runs in a shutdown hook, because
     *     the JVM ends as soon as its hooks are done
     */
    static void await(PrintWriter out, String threadName, Supplier<String> stop) throws InterruptedException {
        out.println("Press Ctrl-C or send SIGTERM to stop.");
        out.flush();
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            out.println(stop.get());
            out.flush();
            stopped.countDown();
        }, threadName));
        stopped.await();
    }
}
