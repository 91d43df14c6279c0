package io.kdra.bench.apiserver;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Stores 100,000 small objects (ConfigMaps created over HTTP) and reports the heap the server then holds, after a
 * full GC, as the {@code heapMiB} counter (target: under 1 GiB). The JVM runs with -Xmx1g, so the run fails if the
 * objects do not fit.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = "-Xmx1g")
@Warmup(iterations = 0)
@Measurement(iterations = 1)
public class HeapBenchmark {

    private static final int OBJECTS = 100_000;

    /** The measured heap. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class Heap {
        public double heapMiB;
    }

    private RunningServer server;

    @Setup(Level.Trial)
    public void start() {
        server = new RunningServer();
    }

    @Benchmark
    public void store100k(Heap heap) {
        for (int i = 0; i < OBJECTS; i++) {
            server.send("POST", "/api/v1/namespaces/default/configmaps", RunningServer.configMap("cm-" + i));
        }
        Runtime runtime = Runtime.getRuntime();
        System.gc();
        heap.heapMiB = (runtime.totalMemory() - runtime.freeMemory()) / (1024.0 * 1024.0);
    }

    @TearDown(Level.Trial)
    public void stop() {
        server.close();
    }
}
