package io.kdra.cluster.kubelet;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResultBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimConsumerReferenceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimStatusBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kdra.apiserver.ApiServer;
import io.kdra.apiserver.auth.UserInfo;
import io.kdra.cluster.kubelet.server.ContainerStreams.PodContainer;
import io.kdra.cluster.runtime.Cgroups;
import io.kdra.cluster.runtime.ContainerRuntime;
import io.kdra.cluster.runtime.ProcessRuntime;
import io.kdra.cluster.runtime.RunningContainer;
import io.kdra.cluster.runtime.SimulatedCgroups;
import io.kdra.kube.KubernetesVersion;
import io.kdra.kube.client.KubeClients;
import io.kdra.plugin.KubeletPlugin;
import io.kdra.plugin.resourceslice.DriverResources;
import io.kdra.plugin.resourceslice.Pool;
import io.kdra.testdriver.ExamplePlugin;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

/**
 * An API server, one shared kubelet host, and helpers to start simulated kubelets with the node's identity, test
 * drivers on their sockets, pods and claims allocated the way the scheduler would. Everything started is closed in
 * reverse order.
 */
final class KubeletFixture implements AutoCloseable {

    private static final AtomicInteger COUNTER = new AtomicInteger();

    final ApiServer server = ApiServer.builder().build().start();
    final KubeClients clients = KubeClients.create();
    final KubernetesClient admin = clients.client(server.url(), server.adminToken(), server.caCertificatePem());
    final KubeletHost host = KubeletHost.create(4);
    private final ExecutorService pumps = Executors.newCachedThreadPool();
    final Path base;
    private final Deque<AutoCloseable> cleanup = new ArrayDeque<>();

    /** A started kubelet with its runtime. */
    record Node(String name, SimulatedKubelet kubelet, ContainerRuntime runtime) {}

    KubeletFixture() throws IOException {
        base = Files.createTempDirectory(Path.of("/tmp"), "kd");
    }

    String namespace() {
        String name = "ns-" + COUNTER.incrementAndGet();
        admin.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(name).endMetadata().build())
                .create();
        return name;
    }

    String uniqueNodeName() {
        return "node-" + COUNTER.incrementAndGet();
    }

    /** A client with the kubelet's identity on the node. */
    KubernetesClient nodeClient(String node) {
        String token = server.issueToken(new UserInfo("system:node:" + node, "",
                List.of("system:nodes", "system:authenticated"), Map.of()));
        ConfigBuilder config = new ConfigBuilder(Config.empty()).withMasterUrl(server.url()).withOauthToken(token)
                .withRequestRetryBackoffLimit(0).withUserAgent("kubelet/v1.34.0 (linux/amd64) kdra");
        if (server.caCertificatePem() != null) {
            config.withCaCertData(Base64.getEncoder().encodeToString(
                    server.caCertificatePem().getBytes(StandardCharsets.UTF_8)));
        }
        return clients.client(config.build());
    }

    Node kubelet(String version, UnaryOperator<KubeletConfig> adjust) throws IOException {
        return kubelet(version, adjust, config -> new SimulatedCgroups(config.hostPath(Cgroups.MOUNT_POINT)));
    }

    /** A kubelet whose process runtime keeps the node's cgroups in {@code cgroups(config)}. */
    Node kubelet(String version, UnaryOperator<KubeletConfig> adjust, CgroupsFactory cgroups) throws IOException {
        String name = uniqueNodeName();
        KubeletConfig config = adjust.apply(KubeletConfig.of(name, base.resolve(name),
                KubernetesVersion.parse(version)));
        ContainerRuntime runtime = new ProcessRuntime(config.cdiDirectory(), config.rootDirectory().resolve("containers"),
                cgroups.create(config), host.executor(), pumps);
        SimulatedKubelet kubelet = new SimulatedKubelet(config, nodeClient(name), runtime, host);
        cleanup.push(runtime);
        cleanup.push(kubelet);
        kubelet.start();
        return new Node(name, kubelet, runtime);
    }

    interface CgroupsFactory {
        Cgroups create(KubeletConfig config) throws IOException;
    }

    Node kubelet(String version) throws IOException {
        return kubelet(version, config -> config);
    }

    /** The test driver on the node with devices {@code device-00..}, its slices published. */
    ExamplePlugin driver(Node node, String driverName, int devices, Consumer<KubeletPlugin.Builder> options)
            throws IOException {
        List<io.fabric8.kubernetes.api.model.resource.v1.Device> list = new ArrayList<>();
        for (int i = 0; i < devices; i++) {
            list.add(new io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder()
                    .withName(String.format("device-%02d", i)).build());
        }
        SimulatedKubelet kubelet = node.kubelet();
        ExamplePlugin driver = ExamplePlugin.builder(driverName, kubelet.cdiDirectory())
                .nodeName(node.name())
                .kubernetesClient(admin)
                .driverResources(DriverResources.of(node.name(), Pool.ofDevices(list)))
                .pluginOptions(plugin -> {
                    plugin.registrarDirectory(kubelet.pluginsRegistryDirectory())
                            .pluginDataDirectory(kubelet.pluginsDirectory().resolve(driverName))
                            .resourceSliceSyncDelay(Duration.ofMillis(100));
                    options.accept(plugin);
                })
                .start();
        cleanup.push(driver::stop);
        return driver;
    }

    ExamplePlugin driver(Node node, String driverName) throws IOException {
        return driver(node, driverName, 4, plugin -> { });
    }

    static DeviceRequestAllocationResult result(String request, String driver, String pool, String device) {
        return new DeviceRequestAllocationResultBuilder().withRequest(request).withDriver(driver).withPool(pool)
                .withDevice(device).build();
    }

    /** A claim with one ExactCount request per result's request. */
    ResourceClaim claim(String namespace, String name, DeviceRequestAllocationResult... results) {
        Map<String, io.fabric8.kubernetes.api.model.resource.v1.DeviceRequest> requests = new LinkedHashMap<>();
        for (DeviceRequestAllocationResult result : results) {
            requests.putIfAbsent(result.getRequest(), new DeviceRequestBuilder().withName(result.getRequest())
                    .withNewExactly().withDeviceClassName("test-class").endExactly().build());
        }
        return admin.resource(new ResourceClaimBuilder().withNewMetadata().withNamespace(namespace).withName(name)
                .endMetadata().withNewSpec().withNewDevices().withRequests(List.copyOf(requests.values()))
                .endDevices().endSpec().build()).create();
    }

    /** Writes the allocation and the pods' reservations, as the scheduler does before binding. */
    ResourceClaim allocate(ResourceClaim claim, List<DeviceRequestAllocationResult> results, Pod... pods) {
        ResourceClaim current = admin.resource(claim).get();
        var status = new ResourceClaimStatusBuilder().withNewAllocation().withNewDevices().withResults(results)
                .endDevices().endAllocation();
        for (Pod pod : pods) {
            status.addToReservedFor(new ResourceClaimConsumerReferenceBuilder().withResource("pods")
                    .withName(pod.getMetadata().getName()).withUid(pod.getMetadata().getUid()).build());
        }
        current.setStatus(status.build());
        return admin.resource(current).updateStatus();
    }

    /** Creates a pod (not yet bound). */
    Pod pod(String namespace, String name, UnaryOperator<PodBuilder> spec) {
        PodBuilder builder = new PodBuilder().withNewMetadata().withNamespace(namespace).withName(name).endMetadata()
                .withNewSpec().withTerminationGracePeriodSeconds(5L).endSpec();
        return admin.resource(spec.apply(builder).build()).create();
    }

    /** Binds a pod to the node through {@code pods/binding}, as the scheduler does last. */
    void bind(Pod pod, String node) throws Exception {
        String body = "{\"apiVersion\":\"v1\",\"kind\":\"Binding\",\"metadata\":{\"name\":\""
                + pod.getMetadata().getName() + "\"},\"target\":{\"kind\":\"Node\",\"name\":\"" + node + "\"}}";
        var http = admin.getHttpClient();
        var response = http.sendAsync(http.newHttpRequestBuilder()
                .uri(server.url() + "/api/v1/namespaces/" + pod.getMetadata().getNamespace() + "/pods/"
                        + pod.getMetadata().getName() + "/binding")
                .post("application/json", body).build(), String.class).get(30, java.util.concurrent.TimeUnit.SECONDS);
        if (response.code() != 201) {
            throw new IllegalStateException("binding failed: " + response.code() + " " + response.body());
        }
    }

    /** The running instance of a pod's container on the node, or null. */
    static RunningContainer running(Node node, String namespace, String pod, String container) {
        for (RunningContainer instance : node.runtime().running()) {
            if (instance.config().id().equals(new PodContainer(namespace, pod, container))) {
                return instance;
            }
        }
        return null;
    }

    /** The environment a command exec'd in the container sees. */
    static Map<String, String> env(Node node, String namespace, String pod, String container) throws Exception {
        Process process = node.runtime().exec(new PodContainer(namespace, pod, container), List.of("env"));
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        process.waitFor();
        Map<String, String> env = new LinkedHashMap<>();
        for (String line : output.split("\n")) {
            int equals = line.indexOf('=');
            if (equals > 0) {
                env.put(line.substring(0, equals), line.substring(equals + 1));
            }
        }
        return env;
    }

    Pod get(Pod pod) {
        return admin.pods().inNamespace(pod.getMetadata().getNamespace()).withName(pod.getMetadata().getName()).get();
    }

    List<io.fabric8.kubernetes.api.model.Event> events(Pod pod, String reason) {
        return admin.v1().events().inNamespace(pod.getMetadata().getNamespace()).list().getItems().stream()
                .filter(event -> pod.getMetadata().getName().equals(event.getInvolvedObject().getName())
                        && reason.equals(event.getReason()))
                .toList();
    }

    List<io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice> slices(String node, String driver) {
        return admin.dynamicResourceAllocation().v1().resourcesSlices().withField("spec.nodeName", node)
                .withField("spec.driver", driver).list().getItems();
    }

    @Override
    public void close() throws IOException {
        while (!cleanup.isEmpty()) {
            try {
                cleanup.pop().close();
            } catch (Exception e) {
                // keep closing the rest
            }
        }
        host.close();
        pumps.shutdownNow();
        clients.close();
        server.close();
        try (Stream<Path> files = Files.walk(base)) {
            for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(file);
            }
        }
    }
}
