package io.kdra.bench.apiserver;

import io.kdra.bench.CpuMeter;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jmh.annotations.AuxCounters;
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
import org.openjdk.jmh.infra.ThreadParams;

/**
 * Creates over HTTP while 10 HTTP watchers stream every event of the resource (target: 5,000 writes/s). The score
 * counts the creates answered inside the timed window; {@code create:events} counts the events the watchers read
 * inside it, so a fan-out that lags behind the writes shows as fewer than 10 events per create. Between iterations
 * (untimed) every watcher catches up with every create, so a watcher that was dropped or stalled for 60 s fails the
 * run.
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
    /** Events the watchers had read when the iteration started. */
    private volatile long receivedAtStart;

    /** The events the watchers read in the timed window; JMH sums the threads', so only the first thread's counts. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    public static class Delivered {
        public long events;
        private boolean counts;

        @Setup(Level.Trial)
        public void chooseCounter(ThreadParams thread) {
            counts = thread.getThreadIndex() == 0;
        }
    }

    @Setup(Level.Trial)
    public void start() {
        server = new RunningServer();
        watchers = EventWatchers.open(server, WATCHERS);
    }

    @Setup(Level.Iteration)
    public void markIterationStart() {
        receivedAtStart = watchers.received();
        cpu.start(names.get());
    }

    @Benchmark
    public void create(Delivered delivered) {
        server.send("POST", "/api/v1/namespaces/default/configmaps",
                RunningServer.configMap("cm-" + names.incrementAndGet()));
        if (delivered.counts) {
            delivered.events = watchers.received() - receivedAtStart;
        }
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
