package io.kdra.bench.apiserver;

import io.kdra.bench.CpuMeter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;

/**
 * Creates over HTTP while 10 HTTP watchers stream every event of the resource (target: 5,000 writes/s). Each
 * watcher counts the events it reads; every iteration ends only when each watcher has read one event per create,
 * so a watcher that was dropped or fell behind fails the run instead of flattering it.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(8)
public class WriteWithWatchersBenchmark {

    private static final int WATCHERS = 10;
    private static final long CATCH_UP_NANOS = TimeUnit.SECONDS.toNanos(60);

    private RunningServer server;
    private final List<Watcher> watchers = new ArrayList<>();
    private final AtomicLong names = new AtomicLong();
    private final CpuMeter cpu = new CpuMeter();

    /** One watch connection, read to the end on its own thread; counts the newline-terminated events. */
    private static final class Watcher implements Runnable {
        private final HttpConnection connection;
        private final AtomicLong events = new AtomicLong();
        private volatile boolean ended;

        Watcher(HttpConnection connection) {
            this.connection = connection;
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
                });
            } catch (IOException | UncheckedIOException e) {
                // the watch ends with the server
            } finally {
                ended = true;
            }
        }
    }

    @Setup(Level.Trial)
    public void start() {
        server = new RunningServer();
        for (int i = 0; i < WATCHERS; i++) {
            HttpConnection connection = server.connect();
            connection.openStream("/api/v1/namespaces/default/configmaps?watch=1");
            Watcher watcher = new Watcher(connection);
            Thread reader = new Thread(watcher, "watcher-" + i);
            reader.setDaemon(true);
            reader.start();
            watchers.add(watcher);
        }
    }

    @Setup(Level.Iteration)
    public void markIterationStart() {
        cpu.start(names.get());
    }

    @Benchmark
    public void create() {
        server.send("POST", "/api/v1/namespaces/default/configmaps",
                RunningServer.configMap("cm-" + names.incrementAndGet()));
    }

    /** Waits until every watcher has read every event so far; the CPU figure includes delivering them. */
    @TearDown(Level.Iteration)
    public void awaitWatchers() throws InterruptedException {
        long created = names.get();
        long deadline = System.nanoTime() + CATCH_UP_NANOS;
        for (Watcher watcher : watchers) {
            while (watcher.events.get() < created) {
                if (watcher.ended || System.nanoTime() > deadline) {
                    throw new IllegalStateException("a watcher read " + watcher.events.get() + " of " + created
                            + " events" + (watcher.ended ? " and was dropped" : " within 60 s"));
                }
                Thread.sleep(1);
            }
        }
        cpu.report(created, "write");
    }

    @TearDown(Level.Trial)
    public void stop() {
        server.close();
    }
}
