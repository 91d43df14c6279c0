package io.kdra.cluster.kubelet.server;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.streams.WriteStream;

/**
 * Lets a thread that reads a blocking stream (a log, a process's output) write into a Vert.x stream with
 * back-pressure: a write waits while the stream's queue is full, and fails once the stream is closed.
 */
final class BlockingSink {

    /** How long a writer waits for a drain before it looks again, in case a drain came between look and wait. */
    private static final long RECHECK_MILLIS = 1_000;

    private final WriteStream<Buffer> stream;
    private final Object lock = new Object();
    private boolean closed;

    BlockingSink(WriteStream<Buffer> stream) {
        this.stream = stream;
        stream.drainHandler(drained -> wake());
    }

    /** @return false when the stream was closed, and nothing was written */
    boolean write(Buffer data) throws InterruptedException {
        synchronized (lock) {
            while (!closed && stream.writeQueueFull()) {
                lock.wait(RECHECK_MILLIS);
            }
            if (closed) {
                return false;
            }
        }
        try {
            stream.write(data);
            return true;
        } catch (IllegalStateException streamClosed) {
            close();
            return false;
        }
    }

    /** Fails the writes to come, and wakes a writer waiting for room. */
    void close() {
        synchronized (lock) {
            closed = true;
            lock.notifyAll();
        }
    }

    boolean isClosed() {
        synchronized (lock) {
            return closed;
        }
    }

    private void wake() {
        synchronized (lock) {
            lock.notifyAll();
        }
    }
}
