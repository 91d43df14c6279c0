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
        await(opened);
    }

    public void awaitReached() throws InterruptedException, TimeoutException {
        await(reached);
    }

    public void open() {
        opened.countDown();
    }

    private static void await(CountDownLatch latch) throws InterruptedException, TimeoutException {
        if (!latch.await(30, TimeUnit.SECONDS)) {
            throw new TimeoutException("waited 30 s");
        }
    }
}
