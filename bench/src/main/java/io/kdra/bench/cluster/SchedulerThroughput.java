package io.kdra.bench.cluster;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClassBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.kdra.allocator.AllocatorFeatures;
import io.kdra.allocator.StructuredAllocator;
import io.kdra.allocator.cel.CelSelectorCompiler;
import io.kdra.apiserver.ApiServer;
import io.kdra.apiserver.ApiServerConfig;
import io.kdra.apiserver.auth.UserInfo;
import io.kdra.bench.CpuMeter;
import io.kdra.cluster.Timing;
import io.kdra.cluster.scheduler.Scheduler;
import io.kdra.kube.client.KubeClients;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

/**
 * scheduler_perf's {@code SchedulingWithResourceClaimTemplate/5000pods_500nodes} shape against kdra's scheduler and
 * an in-process API server: 500 nodes with a ResourceSlice of 10 devices each, one DeviceClass, and pods with a
 * one-device claim from a template. This program stands in for the resourceclaim controller (it creates each claim
 * with the pod as controller and records it in the pod's status). Target: 1,000 pods/s scheduled.
 *
 * <p>Two measurements, each on a fresh server: {@code prepared} creates every pod and claim first and times the
 * scheduler alone, from {@code start()} until the last pod is bound; {@code streaming} starts the scheduler first and
 * times from the first pod created until the last is bound, with 8 threads creating pods, claims and pod statuses
 * as scheduler_perf's pod creation and its in-process claim controller do. Run:
 *
 * <pre>
 * ./mvnw -B -q -pl bench -am package -DskipTests
 * java -cp bench/target/kdra-benchmarks.jar io.kdra.bench.cluster.SchedulerThroughput \
 *     [nodes [devicesPerNode [pods [prepared,streaming]]]]
 * </pre>
 */
public final class SchedulerThroughput {

    private static final String DRIVER = "test-driver.cdi.k8s.io";
    private static final String NAMESPACE = "bench";
    private static final int CREATORS = 8;

    private SchedulerThroughput() {}

    public static void main(String[] args) throws Exception {
        int nodes = args.length > 0 ? Integer.parseInt(args[0]) : 500;
        int devices = args.length > 1 ? Integer.parseInt(args[1]) : 10;
        int pods = args.length > 2 ? Integer.parseInt(args[2]) : nodes * devices;
        String modes = args.length > 3 ? args[3] : "prepared,streaming";
        for (String mode : modes.split(",")) {
            run(nodes, devices, pods, mode.equals("prepared"));
        }
        System.exit(0);
    }

    private static void run(int nodes, int devices, int pods, boolean prepared) throws Exception {
        ApiServerConfig config = ApiServerConfig.defaults().withWatchLimits(200_000, 200_000);
        try (ApiServer server = ApiServer.builder().config(config).build().start();
                KubeClients clients = KubeClients.create()) {
            KubernetesClient admin = clients.client(server.url(), server.adminToken(), server.caCertificatePem());
            KubernetesClient schedulerClient = clients.client(server.url(), server.issueToken(new UserInfo(
                    "system:kube-scheduler", "", List.of("system:authenticated"), Map.of())),
                    server.caCertificatePem());
            populate(admin, nodes, devices);
            Set<String> bound = ConcurrentHashMap.newKeySet();
            CountDownLatch allBound = new CountDownLatch(pods);
            try (Watch watch = admin.pods().inNamespace(NAMESPACE).watch(new Watcher<>() {
                @Override
                public void eventReceived(Action action, Pod pod) {
                    if (pod.getSpec().getNodeName() != null && bound.add(pod.getMetadata().getName())) {
                        allBound.countDown();
                    }
                }

                @Override
                public void onClose(WatcherException cause) {
                }
            })) {
                StructuredAllocator allocator = new StructuredAllocator(
                        CelSelectorCompiler.create(CelSelectorCompiler.Options.defaults()),
                        AllocatorFeatures.KUBERNETES_1_34);
                CpuMeter cpu = new CpuMeter();
                long startNanos;
                try (Scheduler scheduler = new Scheduler(schedulerClient, allocator, Timing.FAST,
                        "default-scheduler")) {
                    if (prepared) {
                        createPods(admin, pods);
                        cpu.start(0);
                        startNanos = System.nanoTime();
                        scheduler.start();
                    } else {
                        scheduler.start();
                        cpu.start(0);
                        startNanos = System.nanoTime();
                        createPods(admin, pods);
                    }
                    if (!allBound.await(10, TimeUnit.MINUTES)) {
                        System.out.printf("only %d of %d pods bound%n", bound.size(), pods);
                    }
                    double seconds = (System.nanoTime() - startNanos) / 1e9;
                    System.out.printf("%s: %d nodes x %d devices, %d pods bound in %.2f s: %.0f pods/s",
                            prepared ? "prepared" : "streaming", nodes, devices, bound.size(), seconds,
                            bound.size() / seconds);
                    cpu.report(bound.size(), "pod");
                    System.out.printf(" [scheduler's own threads: %.0f us CPU per pod]%n",
                            schedulerThreadsCpuNanos() / 1e3 / Math.max(1, bound.size()));
                }
            }
        }
    }

    /**
     * CPU of the scheduling, binder and reporter threads; the scheduler's HTTP client and the API server share the
     * Vert.x threads and are not in it.
     */
    private static long schedulerThreadsCpuNanos() {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long total = 0;
        for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (info != null && info.getThreadName().startsWith("default-scheduler")) {
                total += Math.max(0, threads.getThreadCpuTime(info.getThreadId()));
            }
        }
        return total;
    }

    private static void populate(KubernetesClient admin, int nodes, int devices) throws Exception {
        admin.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(NAMESPACE).endMetadata()
                .build()).create();
        admin.resources(io.fabric8.kubernetes.api.model.resource.v1.DeviceClass.class).resource(
                new DeviceClassBuilder().withNewMetadata().withName(DRIVER).endMetadata().withNewSpec()
                        .addNewSelector().withNewCel().withExpression("device.driver == \"" + DRIVER + "\"").endCel()
                        .endSelector().endSpec().build()).create();
        parallel(nodes, i -> {
            String node = String.format("scheduler-perf-dra-%03d", i);
            admin.nodes().resource(new NodeBuilder().withNewMetadata().withName(node).endMetadata()
                    .withNewStatus().withConditions(new NodeConditionBuilder().withType("Ready").withStatus("True")
                            .build()).endStatus().build()).create();
            admin.resources(io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice.class).resource(
                    new ResourceSliceBuilder().withNewMetadata().withName(node + "-" + DRIVER).endMetadata()
                            .withNewSpec().withDriver(DRIVER).withNodeName(node).withNewPool().withName(node)
                            .withGeneration(1L).withResourceSliceCount(1L).endPool()
                            .withDevices(IntStream.range(0, devices).mapToObj(d -> new DeviceBuilder()
                                    .withName(String.format("device-%02d", d)).build()).toList())
                            .endSpec().build()).create();
        });
    }

    /** A pod with a template claim, then what the resourceclaim controller does for it. */
    private static void createPods(KubernetesClient admin, int pods) throws Exception {
        parallel(pods, i -> {
            String name = "pod-" + i;
            Pod pod = admin.pods().inNamespace(NAMESPACE).resource(new PodBuilder().withNewMetadata().withName(name)
                    .endMetadata().withNewSpec().addNewResourceClaim().withName("resource")
                    .withResourceClaimTemplateName("test-claim-template").endResourceClaim()
                    .withContainers(new ContainerBuilder().withName("c").withImage("pause").withNewResources()
                            .addNewClaim().withName("resource").endClaim().endResources().build())
                    .endSpec().build()).create();
            ResourceClaim claim = admin.resources(ResourceClaim.class).inNamespace(NAMESPACE).resource(
                    new ResourceClaimBuilder().withNewMetadata().withName(name + "-resource-x")
                            .addToAnnotations("resource.kubernetes.io/pod-claim-name", "resource")
                            .addNewOwnerReference().withApiVersion("v1").withKind("Pod").withName(name)
                            .withUid(pod.getMetadata().getUid()).withController(true).withBlockOwnerDeletion(true)
                            .endOwnerReference().endMetadata()
                            .withNewSpec().withNewDevices().addNewRequest().withName("req").withNewExactly()
                            .withDeviceClassName(DRIVER).endExactly().endRequest().endDevices().endSpec().build())
                    .create();
            admin.pods().inNamespace(NAMESPACE).withName(name).subresource("status").patch(
                    PatchContext.of(PatchType.STRATEGIC_MERGE), "{\"status\":{\"resourceClaimStatuses\":[{\"name\":"
                            + "\"resource\",\"resourceClaimName\":\"" + claim.getMetadata().getName() + "\"}]}}");
        });
    }

    private interface Step {
        void run(int index) throws Exception;
    }

    private static void parallel(int count, Step step) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(CREATORS);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < CREATORS; t++) {
                int first = t;
                done.add(pool.submit(() -> {
                    for (int i = first; i < count; i += CREATORS) {
                        step.run(i);
                    }
                    return null;
                }));
            }
            for (Future<?> future : done) {
                future.get();
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
