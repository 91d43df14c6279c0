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

/** Lists 10,000 pods over HTTP, body read in full (target: median under 100 ms). */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class ListPodsBenchmark {

    private static final int PODS = 10_000;

    private RunningServer server;
    private final CpuMeter cpu = new CpuMeter();
    private final AtomicLong lists = new AtomicLong();

    @Setup(Level.Trial)
    public void start() {
        server = new RunningServer();
        for (int i = 0; i < PODS; i++) {
            server.send("POST", "/api/v1/namespaces/default/pods", RunningServer.pod("pod-" + i));
        }
    }

    @Setup(Level.Iteration)
    public void markIterationStart() {
        cpu.start(lists.get());
    }

    @Benchmark
    public int list() {
        int length = server.send("GET", "/api/v1/namespaces/default/pods", null).body().length;
        lists.incrementAndGet();
        return length;
    }

    @TearDown(Level.Iteration)
    public void reportCpu() {
        cpu.report(lists.get(), "list");
    }

    @TearDown(Level.Trial)
    public void stop() {
        server.close();
    }
}
