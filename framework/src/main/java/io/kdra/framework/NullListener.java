package io.kdra.framework;

import io.kdra.plugin.ConnectionListener;
import java.io.IOException;
import java.nio.channels.ByteChannel;
import java.util.concurrent.CountDownLatch;

/**
 * A listener nobody connects to, for drivers that run without a kubelet (upstream's {@code nullListener}): accept
 * blocks until it is closed. The kubelet never sees a socket.
 */
final class NullListener implements ConnectionListener {

    private final CountDownLatch closed = new CountDownLatch(1);

    @Override
    public ByteChannel accept() throws IOException {
        try {
            closed.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        throw new IOException("listener closed");
    }

    @Override
    public void close() {
        closed.countDown();
    }
}
