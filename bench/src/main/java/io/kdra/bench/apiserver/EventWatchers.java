package io.kdra.bench.apiserver;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * HTTP watchers of the ConfigMaps in {@code default}, each reading its stream to the end on its own thread and
 * counting the events. Benchmarks wait on them so that a watcher that was dropped or stalled fails the run rather than
 * flattering it.
 */
final class EventWatchers {

    private static final long STALL_NANOS = TimeUnit.SECONDS.toNanos(60);

    private final List<Watcher> watchers = new ArrayList<>();
    /** Events read by all watchers together. */
    private final LongAdder received = new LongAdder();

    private static final class Watcher implements Runnable {
        private final HttpConnection connection;
        private final LongAdder received;
        private final AtomicLong events = new AtomicLong();
        private volatile boolean ended;

        Watcher(HttpConnection connection, LongAdder received) {
            this.connection = connection;
            this.received = received;
        }

        @Override
        public void run() {
            try {
                connection.readStream(chunk -> {
                    long lines = 0;
                    for (int i = chunk.offset(); i < chunk.offset() + chunk.length(); i++) {
                        if (chunk.bytes()[i] == '\n') {
                            lines++;
                        }
                    }
                    events.addAndGet(lines);
                    received.add(lines);
                });
            } catch (IOException | UncheckedIOException e) {
                // the watch ends with the server
            } finally {
                ended = true;
            }
        }
    }

    private EventWatchers() {}

    static EventWatchers open(RunningServer server, int count) {
        EventWatchers group = new EventWatchers();
        for (int i = 0; i < count; i++) {
            HttpConnection connection = server.connect();
            connection.openStream("/api/v1/namespaces/default/configmaps?watch=1");
            Watcher watcher = new Watcher(connection, group.received);
            Thread reader = new Thread(watcher, "watcher-" + i);
            reader.setDaemon(true);
            reader.start();
            group.watchers.add(watcher);
        }
        return group;
    }

    /** The events all watchers have read so far: what a benchmark counts as delivered. */
    long received() {
        return received.sum();
    }

    /**
     * Waits until every watcher has read at least {@code events} events.
     *
     * @param written the events written so far, for the failure message
     * @return the fewest events a watcher has read
     * @throws IllegalStateException if a watcher was dropped or read nothing new for 60 s
     */
    long awaitAll(long events, long written) throws InterruptedException {
        long slowest = Long.MAX_VALUE;
        for (Watcher watcher : watchers) {
            long read = watcher.events.get();
            long progressAt = System.nanoTime();
            while (read < events) {
                if (watcher.ended || System.nanoTime() - progressAt > STALL_NANOS) {
                    throw new IllegalStateException("a watcher read " + read + " of " + written + " events"
                            + (watcher.ended ? " and was dropped" : " and nothing more for 60 s"));
                }
                Thread.sleep(1);
                long now = watcher.events.get();
                if (now > read) {
                    read = now;
                    progressAt = System.nanoTime();
                }
            }
            slowest = Math.min(slowest, read);
        }
        return slowest;
    }
}
