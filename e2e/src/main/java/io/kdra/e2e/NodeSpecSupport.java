package io.kdra.e2e;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.ResourceHealth;
import io.fabric8.kubernetes.api.model.ResourceStatus;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAllocationConfiguration;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAllocationConfigurationBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClassBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResultBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimStatusBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.kdra.framework.Builder;
import io.kdra.framework.Framework;
import io.kdra.framework.KubeletMetrics;
import io.kdra.framework.KubeletNode;
import io.kdra.framework.Waits;
import io.kdra.plugin.ConnectionListener;
import io.kdra.plugin.KubeletPlugin;
import io.kdra.plugin.resourceslice.DriverResources;
import io.kdra.plugin.resourceslice.Pool;
import io.kdra.testdriver.CallMatcher;
import io.kdra.testdriver.ExamplePlugin;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ByteChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;

/**
 * What upstream's node specs ({@code test/e2e_node/dra_test.go}) share: the node under test and its kubelet, the test
 * driver started beside it (whole, registrar only, or DRA service only), the hand-allocated claim and pod of
 * {@code createTestObjects} (no scheduler or controller takes part), test slices and the kubelet's metrics. Created as
 * a field after the {@link Framework}; before each spec it picks the node, after it deletes the node's slices.
 */
final class NodeSpecSupport {

    static final String DRIVER_NAME = "test-driver.cdi.k8s.io";
    static final String KUBELET_PLUGIN1_NAME = "test-driver1.cdi.k8s.io";
    static final String KUBELET_PLUGIN2_NAME = "test-driver2.cdi.k8s.io";
    /** How long to wait for a node plugin to be registered. */
    static final Duration PLUGIN_REGISTRATION_TIMEOUT = Duration.ofSeconds(60);
    /** One failed attempt to start a pod followed by a successful one: the kubelet's retry period (90 s) + 30 s. */
    static final Duration RETRY_TEST_TIMEOUT = Duration.ofSeconds(120);
    static final String REQUEST = "my-request";
    static final String CONTAINER = "testcontainer";
    private static final Pattern NOT_ENV_NAME = Pattern.compile("[^a-z0-9]");

    private final Framework f;
    private KubeletNode kubelet;

    private NodeSpecSupport(Framework f) {
        this.f = f;
    }

    static NodeSpecSupport create(Framework f) {
        NodeSpecSupport support = new NodeSpecSupport(f);
        f.beforeEach("pick the node under test", support::pickNode);
        return support;
    }

    /**
     * Skips each spec where the gate is on (upstream's {@code e2eskipper.IsFeatureGateEnabled} before-each); on the
     * embedded cluster {@link io.kdra.framework.DisabledFeatureGates} gives the spec a cluster with it off.
     */
    NodeSpecSupport skipIfFeatureGateEnabled(String gate) {
        f.beforeEach("skip if " + gate + " is enabled", () -> Assumptions.assumeFalse(
                f.backend().featureGateEnabled(gate).orElse(false), "feature " + gate + " is enabled"));
        return this;
    }

    private void pickNode() {
        f.backend().kubeletNodeUnavailable().ifPresent(reason -> Assumptions.abort(reason));
        String nodeName = f.client().nodes().list().getItems().stream().map(node -> node.getMetadata().getName())
                .sorted().findFirst().orElseThrow(() -> new IllegalStateException("the cluster has no node"));
        kubelet = f.backend().kubeletNode(nodeName);
        // Plugins and kubelets killed in a spec leave slices behind; upstream deletes all of them after each spec.
        f.cleanup("delete the ResourceSlices of node " + nodeName, () -> {
            for (String name : List.of(nodeName, nodeName + "-other")) {
                f.client().resources(ResourceSlice.class).withField("spec.nodeName", name).delete();
            }
        });
    }

    String nodeName() {
        return kubelet.access().nodeName();
    }

    KubeletNode kubelet() {
        return kubelet;
    }

    /**
     * Starts the test driver for the node with one device {@code device-00} in pool {@code <node>}, its health
     * service on, and waits until the kubelet registered it (upstream's {@code newKubeletPlugin}); stopped after the
     * spec by {@link #draServiceCleanup}.
     */
    ExamplePlugin newKubeletPlugin(String driverName) throws IOException {
        return newKubeletPlugin(driverName, plugin -> { });
    }

    /** {@link #newKubeletPlugin(String)} with further options, such as the health service off. */
    ExamplePlugin newKubeletPlugin(String driverName, Consumer<KubeletPlugin.Builder> options) throws IOException {
        f.by("start Kubelet plugin");
        ExamplePlugin plugin = start(driverName, true, builder -> options.accept(withHealthService(builder)));
        f.cleanup("stop Kubelet plugin " + driverName, () -> draServiceCleanup(driverName, plugin));
        awaitRegistered(plugin);
        return plugin;
    }

    /** Only the registration socket of the driver, advertising the DRA socket (upstream's {@code newRegistrar}). */
    ExamplePlugin newRegistrar(String driverName, Consumer<KubeletPlugin.Builder> options) throws IOException {
        f.by("start only Kubelet plugin registrar");
        ExamplePlugin registrar = start(driverName, false, plugin -> options.accept(plugin.draService(false)));
        f.cleanup("stop the registrar of " + driverName, registrar::stop);
        return registrar;
    }

    /** Only the DRA socket of the driver, publishing its device (upstream's {@code newDRAService}). */
    ExamplePlugin newDraService(String driverName, Consumer<KubeletPlugin.Builder> options) throws IOException {
        f.by("start only Kubelet plugin");
        ExamplePlugin service = start(driverName, true,
                plugin -> options.accept(withHealthService(plugin).registrationService(false)));
        f.cleanup("stop Kubelet plugin " + driverName, () -> draServiceCleanup(driverName, service));
        return service;
    }

    /**
     * Upstream's two-socket start: a registrar-only instance, its registration, then the DRA service with
     * {@code serviceOptions} beside it.
     */
    ExamplePlugin newRegisteredDraService(String driverName, Consumer<KubeletPlugin.Builder> registrarOptions,
            Consumer<KubeletPlugin.Builder> serviceOptions) throws IOException {
        f.by("start DRA registrar");
        ExamplePlugin registrar = newRegistrar(driverName, registrarOptions);
        awaitRegistered("wait for registration to complete", registrar);
        f.by("start DRA plugin service");
        return newDraService(driverName, serviceOptions);
    }

    /** {@link #newRegisteredDraService(String, Consumer, Consumer)} with the same options for both sockets. */
    ExamplePlugin newRegisteredDraService(String driverName, Consumer<KubeletPlugin.Builder> options)
            throws IOException {
        return newRegisteredDraService(driverName, options, options);
    }

    /** Waits until the kubelet registered the plugin. */
    void awaitRegistered(ExamplePlugin plugin) {
        awaitCalls(plugin, PLUGIN_REGISTRATION_TIMEOUT, CallMatcher.beRegistered());
    }

    /** A step of the scenario (upstream's {@code By}) that waits until the kubelet registered the plugin. */
    void awaitRegistered(String step, ExamplePlugin plugin) {
        f.by(step);
        awaitRegistered(plugin);
    }

    /** Waits, as long as a failed and a retried pod start may take, until the plugin's gRPC calls match. */
    void awaitCalls(ExamplePlugin plugin, CallMatcher matcher) {
        awaitCalls(plugin, RETRY_TEST_TIMEOUT, matcher);
    }

    /** A step of the scenario (upstream's {@code By}) that waits until the plugin's gRPC calls match. */
    void awaitCalls(String step, ExamplePlugin plugin, CallMatcher matcher) {
        f.by(step);
        awaitCalls(plugin, matcher);
    }

    private static void awaitCalls(ExamplePlugin plugin, Duration timeout, CallMatcher matcher) {
        Waits.until(matcher.description(), timeout).until(plugin::grpcCalls, matcher);
    }

    /**
     * Upstream's "1 common socket": the DRA socket {@code <driver>-common.sock} in the kubelet's registry directory,
     * next to the registration socket.
     */
    Consumer<KubeletPlugin.Builder> commonSocket(String driverName) {
        return plugin -> plugin.pluginDataDirectory(kubelet.access().pluginsRegistryDirectory())
                .pluginSocket(driverName + "-common.sock");
    }

    private static KubeletPlugin.Builder withHealthService(KubeletPlugin.Builder plugin) {
        return plugin.healthV1alpha1(true).healthV1(true);
    }

    private ExamplePlugin start(String driverName, boolean withDevice, Consumer<KubeletPlugin.Builder> options)
            throws IOException {
        String nodeName = nodeName();
        ExamplePlugin.Builder builder = ExamplePlugin.builder(driverName, kubelet.access().cdiFiles())
                .nodeName(nodeName)
                .kubernetesClient(f.client())
                .pluginOptions(plugin -> options.accept(plugin
                        .registrarDirectory(kubelet.access().pluginsRegistryDirectory())
                        .pluginDataDirectory(kubelet.access().pluginsDirectory().resolve(driverName))));
        if (withDevice) {
            builder.driverResources(DriverResources.of(nodeName,
                    Pool.ofDevices(List.of(new DeviceBuilder().withName("device-00").build()))));
        }
        return builder.start();
    }

    /**
     * Upstream's {@code draServiceCleanup}: deletes the namespace's pods and waits until they are gone and the
     * kubelet no longer counts claims of the driver in use, then stops the plugin and deletes the driver's slices.
     */
    private void draServiceCleanup(String driverName, ExamplePlugin plugin) {
        try {
            f.by("Deleting pods and waiting for ResourceClaims to be released...");
            f.client().pods().inNamespace(f.namespace()).delete();
            Waits.until("all pods deleted, shut down and removed", f.timeouts().podDelete())
                    .until(() -> f.client().pods().inNamespace(f.namespace()).list().getItems().isEmpty());
            Waits.until("no claims of " + driverName + " in use", f.timeouts().podDelete())
                    .until(() -> claimsInUse().getOrDefault(driverName, 0.0) == 0.0);
        } finally {
            f.by("Stopping the driver and deleting ResourceSlices...");
            plugin.stop();
            f.client().resources(ResourceSlice.class).withField("spec.driver", driverName).delete();
        }
    }

    /** The kubelet's {@code dra_resource_claims_in_use} by driver name ({@code <any>} for all). */
    Map<String, Double> claimsInUse() {
        return KubeletMetrics.claimsInUse(kubelet.kubeletMetrics());
    }

    /** Restarts the kubelet and waits until the node is Ready (upstream's {@code restartKubelet(ctx, true)}). */
    void restartKubelet() {
        kubelet.restartKubelet();
    }

    /**
     * Stops the kubelet (upstream's {@code mustStopKubelet}) and returns what starts it again; a kubelet still
     * stopped when the spec ends is started before the plugins' cleanup.
     */
    Runnable mustStopKubelet() {
        kubelet.stopKubelet();
        f.cleanup("start the kubelet of " + nodeName() + " if it is still stopped", () -> {
            if (!kubelet.isKubeletRunning()) {
                kubelet.startKubelet();
            }
        });
        return kubelet::startKubelet;
    }

    /**
     * Upstream's {@code createTestObjects}: a DeviceClass without selectors, a claim with request {@value #REQUEST},
     * a pod bound to the node by {@code spec.nodeName} whose container checks the drivers' environment ({@code
     * drasleeppod} then sleeps), and the claim's status written by hand as scheduler and controller would: reserved
     * for the pod, allocated {@code some-device} of {@code some-pool} per driver (or the given results), with an
     * opaque config per driver that sets {@code DRA_<driver>=PARAM1_VALUE}.
     */
    Pod createTestObjects(String className, String claimName, String podName, boolean deferPodDeletion,
            List<String> driverNames, DeviceRequestAllocationResult... deviceRequestResults) {
        KubernetesClient client = f.client();
        client.resource(new DeviceClassBuilder().withNewMetadata().withName(className).endMetadata().build())
                .create();
        f.cleanup("delete DeviceClass " + className,
                () -> client.resources(DeviceClass.class)
                        .withName(className).delete());

        String podClaimName = "resource-claim";
        ResourceClaim claim = client.resource(new ResourceClaimBuilder()
                .withNewMetadata().withName(claimName).withNamespace(f.namespace()).endMetadata()
                .withNewSpec().withNewDevices().addNewRequest().withName(REQUEST).withNewExactly()
                .withDeviceClassName(className).endExactly().endRequest().endDevices().endSpec()
                .build()).create();
        f.cleanup("delete ResourceClaim " + claimName,
                () -> client.resources(ResourceClaim.class).inNamespace(f.namespace()).withName(claimName).delete());

        List<String> sortedDrivers = driverNames.stream().sorted().toList();
        List<String> expectedEnv = sortedDrivers.stream().map(name -> envName(name) + "=PARAM1_VALUE").toList();
        String command = "if ! echo $(env) | grep -q " + String.join(".*", expectedEnv)
                + "; then echo ERROR: unexpected env: $(env) >/dev/termination-log; exit 1 ; fi";
        if (podName.equals("drasleeppod")) {
            command += "&& sleep 100000";
        }
        Pod pod = client.resource(new PodBuilder()
                .withNewMetadata().withName(podName).withNamespace(f.namespace()).endMetadata()
                .withNewSpec().withNodeName(nodeName())
                .addNewResourceClaim().withName(podClaimName).withResourceClaimName(claimName).endResourceClaim()
                .addToContainers(new ContainerBuilder().withName(CONTAINER).withImage(Builder.BUSYBOX_IMAGE)
                        .withNewResources().addNewClaim().withName(podClaimName).endClaim().endResources()
                        .withCommand("/bin/sh", "-c", command).build())
                .withRestartPolicy("Never")
                .endSpec().build()).create();
        if (deferPodDeletion) {
            f.cleanup("delete pod " + podName,
                    () -> client.pods().inNamespace(f.namespace()).withName(podName).delete());
        }

        List<DeviceRequestAllocationResult> results = new ArrayList<>(List.of(deviceRequestResults));
        if (results.isEmpty()) {
            for (String driverName : driverNames) {
                results.add(new DeviceRequestAllocationResultBuilder().withDriver(driverName).withPool("some-pool")
                        .withDevice("some-device").withRequest(REQUEST).withAdminAccess(false).build());
            }
        }
        List<DeviceAllocationConfiguration> configs = driverNames.stream()
                .map(driverName -> new DeviceAllocationConfigurationBuilder().withSource("FromClaim")
                        .withNewOpaque().withDriver(driverName)
                        .withParameters(Map.of(envName(driverName), "PARAM1_VALUE")).endOpaque().build())
                .toList();
        claim.setStatus(new ResourceClaimStatusBuilder()
                .addNewReservedFor().withResource("pods").withName(podName).withUid(pod.getMetadata().getUid())
                .endReservedFor()
                .withNewAllocation().withNewDevices().withResults(results).withConfig(configs).endDevices()
                .endAllocation().build());
        client.resource(claim).updateStatus();
        return pod;
    }

    /**
     * Upstream's {@code createHealthTestPodAndClaim} (and, with a share ID, {@code createTestObjectsWithShareID}): a
     * DeviceClass, a claim with request {@value #REQUEST}, a long-running pod bound to the node whose container uses
     * that request, the pod's {@code resourceClaimStatuses} patched in as the scheduler would, and the claim reserved
     * for the pod with the given device allocated.
     */
    Pod createHealthTestPodAndClaim(String driverName, String podName, String claimName, String className,
            String poolName, String deviceName, String shareId) {
        KubernetesClient client = f.client();
        f.by("Creating DeviceClass \"" + className + "\"");
        client.resource(new DeviceClassBuilder().withNewMetadata().withName(className).endMetadata().build())
                .create();
        f.cleanup("delete DeviceClass " + className,
                () -> client.resources(DeviceClass.class)
                        .withName(className).delete());
        f.by("Creating ResourceClaim \"" + claimName + "\"");
        client.resource(new ResourceClaimBuilder()
                .withNewMetadata().withName(claimName).withNamespace(f.namespace()).endMetadata()
                .withNewSpec().withNewDevices().addNewRequest().withName(REQUEST).withNewExactly()
                .withDeviceClassName(className).endExactly().endRequest().endDevices().endSpec()
                .build()).create();
        f.cleanup("delete ResourceClaim " + claimName,
                () -> client.resources(ResourceClaim.class).inNamespace(f.namespace()).withName(claimName).delete());
        f.by("Creating long-running Pod \"" + podName + "\"");
        Pod pod = client.resource(new PodBuilder()
                .withNewMetadata().withName(podName).withNamespace(f.namespace()).endMetadata()
                .withNewSpec().withNodeName(nodeName()).withRestartPolicy("Never")
                .addNewResourceClaim().withName(claimName).withResourceClaimName(claimName).endResourceClaim()
                .addToContainers(new ContainerBuilder().withName(CONTAINER).withImage(Builder.BUSYBOX_IMAGE)
                        .withCommand("/bin/sh", "-c", "sleep 600")
                        .withNewResources().addNewClaim().withName(claimName).withRequest(REQUEST).endClaim()
                        .endResources().build())
                .endSpec().build()).create();
        f.cleanup("delete pod " + podName,
                () -> client.pods().inNamespace(f.namespace()).withName(podName).delete());
        client.pods().inNamespace(f.namespace()).withName(podName).subresource("status").patch(
                PatchContext.of(PatchType.STRATEGIC_MERGE),
                "{\"status\":{\"resourceClaimStatuses\":[{\"name\":\"" + claimName
                        + "\",\"resourceClaimName\":\"" + claimName + "\"}]}}");
        f.by("Allocating claim \"" + claimName + "\" to pod \"" + podName + "\" with its real UID");
        ResourceClaim claim = client.resources(ResourceClaim.class).inNamespace(f.namespace()).withName(claimName)
                .get();
        claim.setStatus(new ResourceClaimStatusBuilder()
                .addNewReservedFor().withResource("pods").withName(podName).withUid(pod.getMetadata().getUid())
                .endReservedFor()
                .withNewAllocation().withNewDevices().addNewResult().withDriver(driverName).withPool(poolName)
                .withDevice(deviceName).withRequest(REQUEST).withShareID(shareId).endResult().endDevices()
                .endAllocation().build());
        client.resource(claim).updateStatus();
        return pod;
    }

    /**
     * The health of the driver's device in the pod's status as upstream's {@code getDeviceHealthFromAPIServer} reads
     * it: under {@code claim:<claim>} or {@code claim:<claim>/my-request}, the resource {@code <driver>/<pool>/<device>}
     * or any resource ID starting with the driver name (the kubelet names it by its first CDI device ID);
     * {@code NotFound} when there is none.
     */
    String deviceHealth(Pod pod, String driverName, String claimName, String poolName, String deviceName) {
        Pod current = f.client().pods().inNamespace(pod.getMetadata().getNamespace())
                .withName(pod.getMetadata().getName()).get();
        if (current == null || current.getStatus() == null) {
            return "NotFound";
        }
        String expectedResourceId = driverName + "/" + poolName + "/" + deviceName;
        List<String> statusNames = List.of("claim:" + claimName, "claim:" + claimName + "/" + REQUEST);
        for (ContainerStatus container : current.getStatus().getContainerStatuses()) {
            for (ResourceStatus status : container.getAllocatedResourcesStatus()) {
                if (!statusNames.contains(status.getName())) {
                    continue;
                }
                for (ResourceHealth health : status.getResources()) {
                    String id = health.getResourceID();
                    if (id != null && (id.equals(expectedResourceId) || id.startsWith(driverName))) {
                        return health.getHealth();
                    }
                }
            }
        }
        return "NotFound";
    }

    /** {@code DRA_<driver name with every character but a-z and 0-9 as _>}. */
    static String envName(String driverName) {
        return "DRA_" + NOT_ENV_NAME.matcher(driverName).replaceAll("_");
    }

    /** A slice of the driver with the node's name for node, slice and pool, no devices (upstream's helper). */
    void createTestResourceSlice(String sliceNodeName, String driverName) {
        f.by("Creating ResourceSlice " + sliceNodeName);
        f.client().resource(new ResourceSliceBuilder().withNewMetadata().withName(sliceNodeName).endMetadata()
                .withNewSpec().withNodeName(sliceNodeName).withDriver(driverName)
                .withNewPool().withName(sliceNodeName).withResourceSliceCount(1L).withGeneration(0L).endPool()
                .endSpec().build()).create();
        f.cleanup("delete ResourceSlice " + sliceNodeName,
                () -> f.client().resources(ResourceSlice.class).withName(sliceNodeName).delete());
    }

    /** Every ResourceSlice, sorted by name (upstream's {@code listResources}). */
    List<ResourceSlice> listResources() {
        return f.client().resources(ResourceSlice.class).list().getItems().stream()
                .sorted(Comparator.comparing(slice -> slice.getMetadata().getName())).toList();
    }

    /** The node names of {@link #listResources()}, to compare with upstream's {@code matchResourcesByNodeName}. */
    List<String> sliceNodeNames() {
        return listResources().stream().map(slice -> slice.getSpec().getNodeName()).sorted().toList();
    }

    /**
     * A listener whose {@code accept} waits until it is closed and then fails with the given message (upstream's
     * {@code errorOnCloseListener}): closing it makes the plugin's server stop serving with that error.
     */
    static final class ErrorOnCloseListener implements ConnectionListener {
        private final CountDownLatch closed = new CountDownLatch(1);
        private final String message;

        ErrorOnCloseListener(String message) {
            this.message = message;
        }

        @Override
        public ByteChannel accept() throws IOException {
            try {
                closed.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            throw new IOException(message);
        }

        @Override
        public void close() {
            closed.countDown();
        }
    }

    /**
     * A Unix socket listener at the plugin's socket path that counts the connections it accepted (upstream's
     * {@code countingListener}); it removes its socket file when closed.
     */
    static final class CountingListener implements ConnectionListener {
        private final ServerSocketChannel server;
        private final Path socketPath;
        private final AtomicInteger accepted = new AtomicInteger();

        private CountingListener(ServerSocketChannel server, Path socketPath) {
            this.server = server;
            this.socketPath = socketPath;
        }

        static CountingListener listen(Path socketPath) throws IOException {
            Files.createDirectories(socketPath.getParent());
            Files.deleteIfExists(socketPath);
            ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
            server.bind(UnixDomainSocketAddress.of(socketPath));
            return new CountingListener(server, socketPath);
        }

        @Override
        public ByteChannel accept() throws IOException {
            SocketChannel connection = server.accept();
            accepted.incrementAndGet();
            return connection;
        }

        int acceptCount() {
            return accepted.get();
        }

        @Override
        public void close() throws IOException {
            server.close();
            Files.deleteIfExists(socketPath);
        }
    }
}
