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
 * The heap the server holds after a full GC, as the {@code heapMiB} counter, with the JVM at -Xmx1g so that the run
 * fails if the state does not fit: {@code store100k} stores 100,000 small objects (ConfigMaps created over HTTP;
 * target: under 1 GiB); {@code podHistory100k} fills the watch history (100,000 events by default) with pod status
 * updates, 100 for each of 1,000 pods, as kubelets make them.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = "-Xmx1g")
@Warmup(iterations = 0)
@Measurement(iterations = 1)
public class HeapBenchmark {

    private static final int OBJECTS = 100_000;
    private static final int PODS = 1_000;
    private static final int UPDATES_PER_POD = 100;

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
        heap.heapMiB = heapAfterGc();
    }

    @Benchmark
    public void podHistory100k(Heap heap) {
        for (int i = 0; i < PODS; i++) {
            server.send("POST", "/api/v1/namespaces/default/pods", RunningServer.pod("pod-" + i));
        }
        for (int update = 0; update < UPDATES_PER_POD; update++) {
            for (int i = 0; i < PODS; i++) {
                server.send("PATCH", "/api/v1/namespaces/default/pods/pod-" + i + "/status",
                        "application/strategic-merge-patch+json", "{\"status\":{\"conditions\":[{\"type\":\"Ready\","
                                + "\"status\":\"False\",\"message\":\"update " + update + "\"}]}}");
            }
        }
        heap.heapMiB = heapAfterGc();
    }

    private static double heapAfterGc() {
        Runtime runtime = Runtime.getRuntime();
        System.gc();
        return (runtime.totalMemory() - runtime.freeMemory()) / (1024.0 * 1024.0);
    }

    @TearDown(Level.Trial)
    public void stop() {
        server.close();
    }
}
