package io.kdra.plugin.testing;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Holds calls at one point until the test opens it, and tells the test when the first call has got there. */
public final class Gate {

    private final CountDownLatch reached = new CountDownLatch(1);
    private final CountDownLatch opened = new CountDownLatch(1);

    /** Where the calls are held: waits for {@link #open()}, at most 30 s. */
    public void pass() throws InterruptedException, TimeoutException {
        reached.countDown();
        await(opened, "the test did not open the gate");
    }

    public void awaitReached() throws InterruptedException, TimeoutException {
        await(reached, "no call reached the gate");
    }

    public void open() {
        opened.countDown();
    }

    private static void await(CountDownLatch latch, String problem) throws InterruptedException, TimeoutException {
        if (!latch.await(30, TimeUnit.SECONDS)) {
            throw new TimeoutException(problem + " within 30 s");
        }
    }
}
