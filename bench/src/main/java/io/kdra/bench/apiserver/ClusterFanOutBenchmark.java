package io.kdra.bench.apiserver;

import io.kdra.apiserver.ApiServerConfig;
import io.kdra.bench.CpuMeter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The API server's share of a 500-node DRA run: one pod watch per node filtered by {@code spec.nodeName} (the
 * kubelets), 3 unfiltered pod watches (scheduler and controllers), all over HTTP, while 8 writers take pods through
 * the 5 writes of their life: create, bind to a node (the pods/binding subresource), and 3 status updates as a kubelet
 * makes them (strategic merge patches of pods/status). Pod {@code k} goes to node {@code k mod nodes}.
 *
 * <p>One operation is a batch of {@link #pods} pods and ends only when every watcher has read every event the batch
 * caused, so the time includes the watchers' catch-up; JMH reports that time, and each iteration prints the pods per
 * second it makes next to the process CPU per pod. Every
 * watcher checks what it reads (see {@link PodWatchStreams}): a node's watcher must get exactly its pods' 4 events
 * (ADDED on binding, then 3 MODIFIED) and nothing foreign, an unfiltered one all 5 events of every pod, each in
 * resourceVersion order, or the run fails.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = "-Xmx4g")
@Warmup(iterations = 2)
@Measurement(iterations = 5)
public class ClusterFanOutBenchmark {

    private static final int WRITERS = 8;
    private static final int UNFILTERED_WATCHERS = 3;
    private static final String PATCH = "application/strategic-merge-patch+json";

    @Param({"500"})
    public int nodes;

    /** Pods per operation: each is created, bound and updated 3 times. */
    @Param({"5000"})
    public int pods;

    /** The server's event-loop threads. */
    @Param({"2"})
    public int eventLoops;

    private RunningServer server;
    private PodWatchStreams watchers;
    private ExecutorService writers;
    /** Pods written by earlier operations; pod names and nodes continue from here. */
    private long podsWritten;
    /** The time of the last batch, catch-up included. */
    private double batchSeconds;
    private final CpuMeter cpu = new CpuMeter();

    @Setup(Level.Trial)
    public void start() {
        server = new RunningServer(ApiServerConfig.defaults().withEventLoops(eventLoops));
        List<String> nodeNames = new ArrayList<>(nodes);
        for (int i = 0; i < nodes; i++) {
            nodeNames.add(node(i));
        }
        watchers = PodWatchStreams.open(server, nodeNames, UNFILTERED_WATCHERS);
        writers = Executors.newFixedThreadPool(WRITERS);
    }

    @Setup(Level.Iteration)
    public void markIterationStart() {
        cpu.start(podsWritten);
    }

    @Benchmark
    public void podLifecycles() throws InterruptedException, ExecutionException {
        long started = System.nanoTime();
        long first = podsWritten;
        long end = first + pods;
        AtomicLong next = new AtomicLong(first);
        List<Future<?>> running = new ArrayList<>();
        for (int i = 0; i < WRITERS; i++) {
            running.add(writers.submit(() -> {
                for (long k = next.getAndIncrement(); k < end; k = next.getAndIncrement()) {
                    writePodLifecycle(k);
                }
            }));
        }
        for (Future<?> writer : running) {
            writer.get();
        }
        podsWritten = end;
        watchers.await(node -> {
            long bound = podsOn(Integer.parseInt(node.substring("node-".length())), end);
            return new PodWatchStreams.Expected(4 * bound, bound);
        }, new PodWatchStreams.Expected(5 * end, end));
        batchSeconds = (System.nanoTime() - started) / 1e9;
    }

    @TearDown(Level.Iteration)
    public void report() {
        System.out.printf(" [%.0f pods/s]", pods / batchSeconds);
        cpu.report(podsWritten, "pod");
    }

    @TearDown(Level.Trial)
    public void stop() {
        writers.shutdownNow();
        watchers.close();
        server.close();
    }

    /** @return how many of the first {@code total} pods are bound to node {@code index} */
    private long podsOn(int index, long total) {
        return total / nodes + (index < total % nodes ? 1 : 0);
    }

    private void writePodLifecycle(long k) {
        String name = "pod-" + k;
        String path = "/api/v1/namespaces/default/pods/" + name;
        String node = node((int) (k % nodes));
        String ip = (k / 250 % 250) + "." + (k % 250);
        server.send("POST", "/api/v1/namespaces/default/pods", pod(name));
        server.send("POST", path + "/binding", "{\"apiVersion\":\"v1\",\"kind\":\"Binding\",\"metadata\":{\"name\":\""
                + name + "\"},\"target\":{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"name\":\"" + node + "\"}}");
        server.send("PATCH", path + "/status", PATCH, "{\"status\":{\"hostIP\":\"10.0." + ip + "\",\"conditions\":["
                + "{\"type\":\"PodReadyToStartContainers\",\"status\":\"True\"},"
                + "{\"type\":\"Initialized\",\"status\":\"True\"}]}}");
        server.send("PATCH", path + "/status", PATCH, "{\"status\":{\"phase\":\"Running\",\"podIP\":\"10.1." + ip
                + "\",\"containerStatuses\":[" + containerStatus(false) + "]}}");
        server.send("PATCH", path + "/status", PATCH, "{\"status\":{\"conditions\":["
                + "{\"type\":\"ContainersReady\",\"status\":\"True\"},{\"type\":\"Ready\",\"status\":\"True\"}],"
                + "\"containerStatuses\":[" + containerStatus(true) + "]}}");
    }

    private static String containerStatus(boolean ready) {
        return "{\"name\":\"main\",\"image\":\"busybox\",\"imageID\":\"\",\"restartCount\":0,\"started\":true,"
                + "\"ready\":" + ready + ",\"state\":{\"running\":{\"startedAt\":\"2026-01-01T00:00:00Z\"}}}";
    }

    /** An unscheduled pod with a DRA claim, as a workload creates it. */
    private static String pod(String name) {
        return "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"" + name
                + "\",\"labels\":{\"app\":\"bench\"}},\"spec\":{\"containers\":[{\"name\":\"main\",\"image\":"
                + "\"busybox\",\"resources\":{\"requests\":{\"cpu\":\"100m\",\"memory\":\"64Mi\"},\"claims\":"
                + "[{\"name\":\"gpu\"}]}}],\"resourceClaims\":[{\"name\":\"gpu\",\"resourceClaimName\":\"" + name
                + "-gpu\"}]}}";
    }

    private static String node(int index) {
        return "node-" + index;
    }
}
