package io.kdra.bench.apiserver;

import io.kdra.bench.CpuMeter;
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

    private RunningServer server;
    private EventWatchers watchers;
    private final AtomicLong names = new AtomicLong();
    private final CpuMeter cpu = new CpuMeter();

    @Setup(Level.Trial)
    public void start() {
        server = new RunningServer();
        watchers = EventWatchers.open(server, WATCHERS);
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
        watchers.awaitAll(created, created);
        cpu.report(created, "write");
    }

    @TearDown(Level.Trial)
    public void stop() {
        server.close();
    }
}
