package io.kdra.bench.apiserver;

import io.kdra.bench.CpuMeter;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;

/**
 * Watch fan-out: one writer creates and then updates ConfigMaps over HTTP while 1, 10 or 100 HTTP watchers stream
 * every event of the resource. The result that matters is {@code write:events}, the events the watchers read inside
 * the timed window, per second; events still in flight when the window closes are not counted.
 *
 * <p>The writer never runs more than {@value #MAX_LAG} events ahead of the slowest watcher, so the measured rate is
 * the one at which every watcher keeps up, not the one at which the server queues; the bound is far below the
 * server's watch queue capacity, so no watcher is dropped for lagging. Between iterations (untimed) every watcher
 * catches up with every write, so a watcher that was dropped or stalled for 60 s fails the run.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(1)
public class WatchFanOutBenchmark {

    private static final int MAX_LAG = 1_000;
    /** Names are reused, so that after the first round every write is an update (MODIFIED) rather than a create. */
    private static final int NAMES = 1_000;

    @Param({"1", "10", "100"})
    public int watchers;

    private RunningServer server;
    private EventWatchers watching;
    /** Writes so far; written by the one writer thread only. */
    private long writes;
    /** The fewest events any watcher had read when last looked at; only looked at again when the lag bound is hit. */
    private long slowestRead;
    /** Events the watchers had read when the iteration started. */
    private long receivedAtStart;
    private final CpuMeter cpu = new CpuMeter();

    /** The events the watchers read in the timed window, as JMH reports them per second next to the writes. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    public static class Delivered {
        public long events;
    }

    @Setup(Level.Trial)
    public void start() {
        server = new RunningServer();
        watching = EventWatchers.open(server, watchers);
    }

    @Setup(Level.Iteration)
    public void markIterationStart() {
        receivedAtStart = watching.received();
        cpu.start(writes * watchers);
    }

    @Benchmark
    public void write(Delivered delivered) throws InterruptedException {
        if (writes - slowestRead >= MAX_LAG) {
            slowestRead = watching.awaitAll(writes - MAX_LAG / 2, writes);
        }
        long write = writes++;
        String name = "cm-" + write % NAMES;
        if (write < NAMES) {
            server.send("POST", "/api/v1/namespaces/default/configmaps", RunningServer.configMap(name));
        } else {
            server.send("PUT", "/api/v1/namespaces/default/configmaps/" + name, configMapVersion(name, write));
        }
        // Reread on every write, so the last value JMH sees is what was read before the window closed.
        delivered.events = watching.received() - receivedAtStart;
    }

    /** Waits until every watcher has read every event so far; the CPU figure includes delivering them. */
    @TearDown(Level.Iteration)
    public void awaitWatchers() throws InterruptedException {
        slowestRead = watching.awaitAll(writes, writes);
        cpu.report(writes * watchers, "event");
    }

    /** The ConfigMap with a new value, without a resourceVersion: an unconditional update. */
    private static String configMapVersion(String name, long write) {
        return "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"" + name
                + "\",\"labels\":{\"app\":\"bench\"}},\"data\":{\"key\":\"value-" + write + "\"}}";
    }

    @TearDown(Level.Trial)
    public void stop() {
        server.close();
    }
}
