package io.kdra.bench.scheduling;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.NodeSelectorBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClassBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplate;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplateBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kdra.cluster.ClusterNode;
import io.kdra.cluster.EmbeddedCluster;
import io.kdra.cluster.RuntimeKind;
import io.kdra.cluster.Timing;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * Runs a scheduler_perf-shaped DRA {@link Workload} on a whole {@link EmbeddedCluster}: the resourceclaim controller
 * creates each pod's claim from its template, the scheduler allocates a device and binds, and the node's kubelet
 * prepares the claim through the node's DRA driver ({@link NodeDriver}, real gRPC over Unix sockets) before the
 * container runtime (noop by default) runs the pod. Measured as scheduler_perf measures (SchedulingThroughput: 1-second
 * samples of the scheduled pods, mean and percentiles), for scheduled and for Running pods, with the process's CPU
 * (per thread group), heap and the machine's load average.
 *
 * <pre>{@code
 * Result result = SchedulingBenchmark.run(new Options(Workload.named("5000pods_500nodes").orElseThrow(),
 *         RuntimeKind.NOOP, Timing.REAL, 8, progress -> System.err.println(progress.line())));
 * }</pre>
 */
public final class SchedulingBenchmark {

    static final String DEVICE_CLASS = "test-class";
    static final String TEMPLATE = "test-claim-template";
    static final String INIT_NAMESPACE = "init";
    static final String TEST_NAMESPACE = "test";
    private static final Duration STALL_TIMEOUT = Duration.ofSeconds(120);

    /**
     * @param timing the cluster's delays; {@link Timing#REAL} for a benchmark: the fast profile's 1-second Lease
     *     renewals and reconcile periods cost 500 writes a second on 500 nodes, which no real cluster does
     * @param creators threads creating (and in steady state deleting) pods, as scheduler_perf's pod creation; each
     *     waits for the API server's answer before the next request
     * @param progress called about once a second, on a thread of its own
     */
    public record Options(Workload workload, RuntimeKind runtime, Timing timing, int creators,
            Consumer<Progress> progress) {
        public Options {
            Objects.requireNonNull(workload, "workload");
            Objects.requireNonNull(runtime, "runtime");
            Objects.requireNonNull(timing, "timing");
            if (creators < 1) {
                throw new IllegalArgumentException("creators must be at least 1, got " + creators);
            }
            Objects.requireNonNull(progress, "progress");
        }
    }

    /** Where a run is: the phase, the pods of that phase, the last second's rates, the heap in use. */
    public record Progress(String phase, double elapsedSeconds, long target, long created, long scheduled,
            long running, double scheduledPerSecond, double runningPerSecond, long heapUsedMb) {

        public String line() {
            return String.format("%-8s %6.1fs  created %5d/%d  scheduled %5d  Running %5d  %6.0f scheduled/s"
                    + "  %6.0f Running/s  heap %5d MB", phase, elapsedSeconds, created, target, scheduled, running,
                    scheduledPerSecond, runningPerSecond, heapUsedMb);
        }
    }

    /** The machine and the JVM a run was taken on. */
    public record Machine(int cores, double loadAverageAtStart, double loadAverageAtEnd, String java,
            long maxHeapMb) {}

    /**
     * The measured phase: measured pods created; seconds from the first creation to the last pod scheduled and to the
     * last Running; the rates over those spans; scheduler_perf's sampled throughput for scheduled and Running pods.
     * {@code running*} are absent for the steady-state workloads, whose pods are deleted once scheduled.
     */
    public record Measured(long pods, double scheduledSeconds, Double runningSeconds, double scheduledPerSecond,
            Double runningPerSecond, Throughput schedulingThroughput, Throughput runningThroughput) {}

    /** CPU of the whole process over the measured phase, per measured pod, and per thread group (seconds). */
    public record Cpu(double processSeconds, double millisPerPod, Map<String, Double> threadGroups) {}

    /** Peak heap in use (sampled each second) and the heap still in use after a full GC at the end. */
    public record Memory(long peakHeapUsedMb, long heapAfterGcMb) {}

    public record Result(String workload, String description, String runtime, String timing, Machine machine,
            double clusterStartSeconds, double driversReadySeconds, double initSeconds, Measured measured, Cpu cpu,
            Memory memory) {}

    private final Options options;
    private final Workload workload;
    private final MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    private final com.sun.management.OperatingSystemMXBean os =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    private final AtomicLong peakHeap = new AtomicLong();
    private final AtomicLong created = new AtomicLong();
    private volatile String phase = "start";
    private volatile long phaseTarget;
    private volatile long phaseStartNanos = System.nanoTime();
    private volatile ThroughputSamples scheduledSamples = new ThroughputSamples();
    private volatile ThroughputSamples runningSamples = new ThroughputSamples();
    private PodTracker tracker;
    private long lastScheduled;
    private long lastRunning;
    private long lastTickNanos = System.nanoTime();

    private SchedulingBenchmark(Options options) {
        this.options = options;
        this.workload = options.workload();
    }

    public static Result run(Options options) throws Exception {
        return new SchedulingBenchmark(options).run();
    }

    private Result run() throws Exception {
        double loadAtStart = os.getSystemLoadAverage();
        ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread thread = new Thread(r, "kdra-bench-sampler");
            thread.setDaemon(true);
            return thread;
        });
        sampler.scheduleAtFixedRate(this::tick, 1, 1, TimeUnit.SECONDS);
        List<NodeDriver> drivers = Collections.synchronizedList(new ArrayList<>());
        long begin = System.nanoTime();
        EmbeddedCluster cluster = EmbeddedCluster.builder().nodes(workload.nodes()).runtime(options.runtime())
                .timing(options.timing()).start();
        ExecutorService creators = Executors.newFixedThreadPool(options.creators(), r -> {
            Thread thread = new Thread(r, "kdra-bench-creator");
            thread.setDaemon(true);
            return thread;
        });
        try {
            double clusterStart = seconds(begin);
            enter("drivers", workload.nodes());
            long driversBegin = System.nanoTime();
            KubernetesClient admin = cluster.adminClient();
            startDrivers(cluster, drivers, creators);
            createObjects(admin);
            awaitSlicesAndRegistration(admin, drivers);
            double driversReady = seconds(driversBegin);
            tracker = new PodTracker(admin);

            long initBegin = System.nanoTime();
            if (workload.initClaims() > 0) {
                enter("claims", workload.initClaims());
                allocateInitClaims(admin, creators);
            }
            if (workload.initPods() > 0) {
                enter("init", workload.initPods());
                createPods(admin, creators, INIT_NAMESPACE, "init", workload.initPods());
                awaitPods("init", workload.initPods(), true);
            }
            double initSeconds = seconds(initBegin);

            Map<Long, Long> threadCpu = ThreadCpu.snapshot();
            long cpuBefore = os.getProcessCpuTime();
            peakHeap.set(0);
            Measured measured = workload.isSteadyState() ? steadyState(admin, creators)
                    : measure(admin, creators);
            double cpuSeconds = (os.getProcessCpuTime() - cpuBefore) / 1e9;
            Cpu cpu = new Cpu(round(cpuSeconds), round(cpuSeconds * 1e3 / Math.max(1, measured.pods())),
                    ThreadCpu.since(threadCpu));
            enter("done", 0);
            System.gc();
            Memory heap = new Memory(peakHeap.get() >> 20, memory.getHeapMemoryUsage().getUsed() >> 20);
            Machine machine = new Machine(Runtime.getRuntime().availableProcessors(), loadAtStart,
                    os.getSystemLoadAverage(), Runtime.version().toString(),
                    memory.getHeapMemoryUsage().getMax() >> 20);
            return new Result(workload.fullName(), workload.describe(), options.runtime().cliName(),
                    options.timing() == Timing.REAL ? "real-timing" : "fast", machine,
                    round(clusterStart), round(driversReady), round(initSeconds), measured, cpu, heap);
        } finally {
            sampler.shutdownNow();
            creators.shutdown();
            creators.awaitTermination(30, TimeUnit.SECONDS);
            creators.shutdownNow();
            if (tracker != null) {
                tracker.close();
            }
            drivers.forEach(NodeDriver::close);
            cluster.close();
        }
    }

    private Measured measure(KubernetesClient admin, ExecutorService creators) throws Exception {
        enter("measure", workload.measurePods());
        long begin = System.nanoTime();
        createPods(admin, creators, TEST_NAMESPACE, "measure", workload.measurePods());
        awaitPods("measure", workload.measurePods(), true);
        PodTracker.Counts counts = tracker.phase("measure");
        double scheduledSeconds = (counts.lastScheduledNanos - begin) / 1e9;
        double runningSeconds = (counts.lastRunningNanos - begin) / 1e9;
        long pods = workload.measurePods();
        return new Measured(pods, round(scheduledSeconds), round(runningSeconds),
                round(pods / scheduledSeconds), round(pods / runningSeconds), scheduledSamples.summary(),
                runningSamples.summary());
    }

    /** Keeps {@code steadyPods} pods in flight: each pod scheduled is deleted and replaced by a new one. */
    private Measured steadyState(KubernetesClient admin, ExecutorService creators) throws Exception {
        enter("steady", 0);
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicLong next = new AtomicLong();
        tracker.onScheduled(pod -> {
            if ("steady".equals(pod.getMetadata().getLabels().get(PodTracker.PHASE_LABEL))) {
                creators.execute(() -> {
                    admin.pods().inNamespace(TEST_NAMESPACE).withName(pod.getMetadata().getName()).withGracePeriod(0)
                            .delete();
                    if (running.get()) {
                        createPod(admin, TEST_NAMESPACE, "steady", next.getAndIncrement());
                    }
                });
            }
        });
        long begin = System.nanoTime();
        for (int i = 0; i < workload.steadyPods(); i++) {
            long index = next.getAndIncrement();
            creators.execute(() -> createPod(admin, TEST_NAMESPACE, "steady", index));
        }
        Thread.sleep(workload.steadyDuration().toMillis());
        running.set(false);
        long scheduled = tracker.phase("steady").scheduled.get();
        double seconds = seconds(begin);
        return new Measured(scheduled, round(seconds), null, round(scheduled / seconds), null,
                scheduledSamples.summary(), null);
    }

    private void startDrivers(EmbeddedCluster cluster, List<NodeDriver> drivers, ExecutorService pool)
            throws Exception {
        List<Future<?>> started = new ArrayList<>();
        for (ClusterNode node : cluster.nodes()) {
            started.add(pool.submit(() -> {
                drivers.add(NodeDriver.start(node, workload.devicesPerNode()));
                created.incrementAndGet();
                return null;
            }));
        }
        for (Future<?> future : started) {
            future.get();
        }
    }

    private void createObjects(KubernetesClient admin) {
        for (String namespace : List.of(INIT_NAMESPACE, TEST_NAMESPACE)) {
            admin.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(namespace).endMetadata()
                    .build()).create();
            admin.resources(ResourceClaimTemplate.class).inNamespace(namespace).resource(
                    new ResourceClaimTemplateBuilder().withNewMetadata().withName(TEMPLATE).endMetadata()
                            .withNewSpec().withNewSpec().withNewDevices().addNewRequest().withName("req-0")
                            .withNewExactly().withDeviceClassName(DEVICE_CLASS).endExactly().endRequest()
                            .endDevices().endSpec().endSpec().build()).create();
        }
        admin.resources(DeviceClass.class).resource(new DeviceClassBuilder().withNewMetadata()
                .withName(DEVICE_CLASS).endMetadata().withNewSpec().endSpec().build()).create();
    }

    private void awaitSlicesAndRegistration(KubernetesClient admin, List<NodeDriver> drivers)
            throws InterruptedException {
        long deadline = System.nanoTime() + STALL_TIMEOUT.toNanos();
        while (true) {
            long registered = drivers.stream().filter(NodeDriver::isRegistered).count();
            Set<String> published = admin.resources(ResourceSlice.class).list().getItems().stream()
                    .map(slice -> slice.getSpec().getNodeName()).collect(Collectors.toSet());
            if (registered == workload.nodes() && published.size() == workload.nodes()) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(String.format("within %d s, %d of %d drivers registered with their"
                        + " kubelet and %d published their ResourceSlice", STALL_TIMEOUT.toSeconds(), registered,
                        workload.nodes(), published.size()));
            }
            drivers.stream().filter(driver -> !published.contains(driver.nodeName())).forEach(NodeDriver::publish);
            Thread.sleep(500);
        }
    }

    /** Allocated claims without pods, as scheduler_perf's {@code allocResourceClaims}: node by node, device by device. */
    private void allocateInitClaims(KubernetesClient admin, ExecutorService pool) throws Exception {
        List<Future<?>> done = new ArrayList<>();
        for (int i = 0; i < workload.initClaims(); i++) {
            int index = i;
            done.add(pool.submit(() -> {
                String node = "node-" + (index / workload.devicesPerNode() + 1);
                ResourceClaim claim = admin.resources(ResourceClaim.class).inNamespace(INIT_NAMESPACE).resource(
                        new ResourceClaimBuilder().withNewMetadata().withName("claim-" + index).endMetadata()
                                .withNewSpec().withNewDevices().addNewRequest().withName("req-0").withNewExactly()
                                .withDeviceClassName(DEVICE_CLASS).endExactly().endRequest().endDevices().endSpec()
                                .build()).create();
                claim.setStatus(new ResourceClaimBuilder(claim).editOrNewStatus().withNewAllocation()
                        .withNewDevices().addNewResult().withRequest("req-0").withDriver(NodeDriver.DRIVER)
                        .withPool(node).withDevice(NodeDriver.deviceName(index % workload.devicesPerNode()))
                        .endResult().endDevices().withNodeSelector(new NodeSelectorBuilder().addNewNodeSelectorTerm()
                                .addNewMatchField().withKey("metadata.name").withOperator("In").withValues(node)
                                .endMatchField().endNodeSelectorTerm().build()).endAllocation().endStatus()
                        .build().getStatus());
                admin.resources(ResourceClaim.class).inNamespace(INIT_NAMESPACE).resource(claim).updateStatus();
                created.incrementAndGet();
                return null;
            }));
        }
        for (Future<?> future : done) {
            future.get();
        }
    }

    private void createPods(KubernetesClient admin, ExecutorService pool, String namespace, String phase, int count)
            throws Exception {
        List<Future<?>> done = new ArrayList<>();
        int threads = options.creators();
        for (int t = 0; t < threads; t++) {
            int first = t;
            done.add(pool.submit(() -> {
                for (int i = first; i < count; i += threads) {
                    createPod(admin, namespace, phase, i);
                }
                return null;
            }));
        }
        for (Future<?> future : done) {
            future.get();
        }
    }

    /** scheduler_perf's {@code pod-with-claim-template.yaml}. */
    private void createPod(KubernetesClient admin, String namespace, String phase, long index) {
        admin.pods().inNamespace(namespace).resource(new PodBuilder().withNewMetadata()
                .withName(phase + "-" + index).addToLabels(PodTracker.PHASE_LABEL, phase).endMetadata()
                .withNewSpec()
                .withContainers(new ContainerBuilder().withName("pause").withImage("registry.k8s.io/pause:3.10")
                        .withNewResources().addNewClaim().withName("resource").endClaim().endResources().build())
                .addNewResourceClaim().withName("resource").withResourceClaimTemplateName(TEMPLATE)
                .endResourceClaim().endSpec().build()).create();
        created.incrementAndGet();
    }

    /** Waits until {@code count} pods of the phase are scheduled (and Running); fails after two minutes of no progress. */
    private void awaitPods(String phase, int count, boolean untilRunning) throws InterruptedException {
        PodTracker.Counts counts = tracker.phase(phase);
        long progress = -1;
        long progressNanos = System.nanoTime();
        while (counts.scheduled.get() < count || untilRunning && counts.running.get() < count) {
            long now = counts.scheduled.get() + counts.running.get();
            if (now != progress) {
                progress = now;
                progressNanos = System.nanoTime();
            } else if (System.nanoTime() - progressNanos > STALL_TIMEOUT.toNanos()) {
                throw new IllegalStateException(String.format("%s: no progress for %d s: %d of %d pods scheduled,"
                        + " %d Running", phase, STALL_TIMEOUT.toSeconds(), counts.scheduled.get(), count,
                        counts.running.get()));
            }
            Thread.sleep(20);
        }
    }

    private void enter(String next, long target) {
        synchronized (this) {
            phase = next;
            phaseTarget = target;
            phaseStartNanos = System.nanoTime();
            created.set(0);
            scheduledSamples = new ThroughputSamples();
            runningSamples = new ThroughputSamples();
            lastScheduled = 0;
            lastRunning = 0;
        }
    }

    /** Once a second: samples the throughput and the heap, and reports progress. */
    private synchronized void tick() {
        long now = System.nanoTime();
        long heap = memory.getHeapMemoryUsage().getUsed();
        peakHeap.accumulateAndGet(heap, Math::max);
        long scheduled = 0;
        long running = 0;
        if (tracker != null) {
            PodTracker.Counts counts = tracker.phase(phase);
            scheduled = counts.scheduled.get();
            running = counts.running.get();
            scheduledSamples.sample(scheduled, now);
            runningSamples.sample(running, now);
        }
        double interval = (now - lastTickNanos) / 1e9;
        Progress progress = new Progress(phase, (now - phaseStartNanos) / 1e9, phaseTarget, created.get(),
                scheduled, running, (scheduled - lastScheduled) / interval, (running - lastRunning) / interval,
                heap >> 20);
        lastScheduled = scheduled;
        lastRunning = running;
        lastTickNanos = now;
        try {
            options.progress().accept(progress);
        } catch (RuntimeException e) {
            // a failing progress display must not stop the sampling
        }
    }

    private static double seconds(long sinceNanos) {
        return (System.nanoTime() - sinceNanos) / 1e9;
    }

    private static double round(double value) {
        return Math.round(value * 100) / 100.0;
    }
}
