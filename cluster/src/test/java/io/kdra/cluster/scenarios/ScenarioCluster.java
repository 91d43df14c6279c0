package io.kdra.cluster.scenarios;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kdra.cluster.ClusterNode;
import io.kdra.cluster.EmbeddedCluster;
import io.kdra.plugin.KubeletPlugin;
import io.kdra.plugin.resourceslice.DriverResources;
import io.kdra.plugin.resourceslice.Pool;
import io.kdra.testdriver.DriverDevices;
import io.kdra.testdriver.ExamplePlugin;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * One {@link EmbeddedCluster} shared by the tests of a scenario class, with the test driver ({@link ExamplePlugin})
 * running on every node over the node's real Unix sockets, as a DaemonSet of the upstream e2e driver would. Each test
 * gets its own namespace through {@link #scenario()}.
 */
final class ScenarioCluster implements AutoCloseable {

    static final String DRIVER = "test-driver.cdi.k8s.io";
    /** The bound of every wait: generous, so that a loaded 2-core machine passes. */
    static final Duration WAIT = Duration.ofSeconds(60);

    private final EmbeddedCluster cluster;
    private final KubernetesClient admin;
    private final Function<String, List<Device>> devices;
    private final BiConsumer<String, KubeletPlugin.Builder> pluginOptions;
    private final Map<String, ExamplePlugin> drivers = new ConcurrentHashMap<>();
    private final List<ExamplePlugin> extraDrivers = new ArrayList<>();
    private final AtomicInteger namespaces = new AtomicInteger();

    private ScenarioCluster(EmbeddedCluster cluster, Function<String, List<Device>> devices,
            BiConsumer<String, KubeletPlugin.Builder> pluginOptions) {
        this.cluster = cluster;
        this.admin = cluster.adminClient();
        this.devices = devices;
        this.pluginOptions = pluginOptions;
    }

    /** Starts the cluster and the test driver with four devices on every node. */
    static ScenarioCluster start(EmbeddedCluster.Builder builder) {
        return start(builder, node -> DriverDevices.numbered(4), (node, plugin) -> { });
    }

    /**
     * @param devices the devices the test driver publishes on a node, by node name
     * @param pluginOptions further options of a node's driver (served gRPC versions), by node name
     */
    static ScenarioCluster start(EmbeddedCluster.Builder builder, Function<String, List<Device>> devices,
            BiConsumer<String, KubeletPlugin.Builder> pluginOptions) {
        EmbeddedCluster cluster = builder.start();
        ScenarioCluster scenarios = new ScenarioCluster(cluster, devices, pluginOptions);
        try {
            for (ClusterNode node : cluster.nodes()) {
                scenarios.startDriver(node.name());
            }
        } catch (RuntimeException e) {
            scenarios.close();
            throw e;
        }
        return scenarios;
    }

    EmbeddedCluster cluster() {
        return cluster;
    }

    KubernetesClient admin() {
        return admin;
    }

    List<String> nodeNames() {
        return cluster.nodes().stream().map(ClusterNode::name).toList();
    }

    /** The test driver of a node. */
    ExamplePlugin driver(String node) {
        return drivers.get(node);
    }

    List<ExamplePlugin> drivers() {
        return List.copyOf(drivers.values());
    }

    /** Starts the test driver on a node (again, after {@link #stopDriver}), publishing the node's devices. */
    ExamplePlugin startDriver(String node) {
        ExamplePlugin driver = startDriver(node, DRIVER, devices.apply(node),
                plugin -> pluginOptions.accept(node, plugin));
        drivers.put(node, driver);
        return driver;
    }

    /** Stops a node's test driver: its sockets go away, its slices stay for the kubelet to wipe. */
    void stopDriver(String node) {
        ExamplePlugin driver = drivers.remove(node);
        if (driver != null) {
            driver.stop();
        }
    }

    /** Starts another driver on a node, stopped with the cluster unless the test stops it first. */
    ExamplePlugin startExtraDriver(String node, String driverName, List<Device> nodeDevices) {
        ExamplePlugin driver = startDriver(node, driverName, nodeDevices, plugin -> { });
        synchronized (extraDrivers) {
            extraDrivers.add(driver);
        }
        return driver;
    }

    private ExamplePlugin startDriver(String nodeName, String driverName, List<Device> nodeDevices,
            Consumer<KubeletPlugin.Builder> options) {
        ClusterNode node = cluster.node(nodeName);
        try {
            return ExamplePlugin.builder(driverName, node.cdiDirectory())
                    .nodeName(nodeName)
                    .kubernetesClient(node.driverClient("kube-system", "dra-kubelet-plugin"))
                    .driverResources(DriverResources.of(nodeName, Pool.ofDevices(nodeDevices)))
                    .pluginOptions(plugin -> {
                        plugin.registrarDirectory(node.pluginsRegistryDirectory())
                                .pluginDataDirectory(node.pluginsDirectory().resolve(driverName))
                                // slices the kubelet wiped come back at once, not after upstream's 30 s
                                .resourceSliceSyncDelay(Duration.ofMillis(100));
                        options.accept(plugin);
                    })
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException("driver " + driverName + " on " + nodeName + " cannot start", e);
        }
    }

    /** The ResourceSlices of a driver on a node. */
    List<ResourceSlice> slices(String node, String driverName) {
        return admin.resources(ResourceSlice.class)
                .withField("spec.nodeName", node).list().getItems().stream()
                .filter(slice -> driverName.equals(slice.getSpec().getDriver()))
                .toList();
    }

    Set<String> sliceUids(String node) {
        return slices(node, DRIVER).stream().map(slice -> slice.getMetadata().getUid()).collect(Collectors.toSet());
    }

    /** Waits until every node's test driver is registered and has published its slices. */
    void awaitDriversReady() {
        for (String node : nodeNames()) {
            await().atMost(WAIT).until(() -> driver(node) != null && driver(node).isRegistered()
                    && !slices(node, DRIVER).isEmpty());
        }
    }

    /** A new namespace {@code dra-<n>} and its DeviceClass {@code <namespace>-class} selecting the test driver. */
    Scenario scenario() {
        String namespace = "dra-" + namespaces.incrementAndGet();
        admin.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(namespace).endMetadata()
                .build()).create();
        return new Scenario(this, namespace);
    }

    /** The events of an object in a namespace with a reason, oldest first. */
    List<Event> events(String namespace, String objectName, String reason) {
        return admin.v1().events().inNamespace(namespace).list().getItems().stream()
                .filter(event -> objectName.equals(event.getInvolvedObject().getName()))
                .filter(event -> reason.equals(event.getReason()))
                .toList();
    }

    Pod pod(String namespace, String name) {
        return admin.pods().inNamespace(namespace).withName(name).get();
    }

    /** Waits until no driver has a prepared claim left, as upstream's teardown does before the driver goes. */
    void awaitNothingPrepared() {
        for (ExamplePlugin driver : drivers()) {
            await().atMost(WAIT).untilAsserted(() -> assertThat(driver.preparedClaims())
                    .as("claims still prepared by %s", driver.driverName()).isEmpty());
        }
    }

    @Override
    public void close() {
        synchronized (extraDrivers) {
            extraDrivers.forEach(ExamplePlugin::stop);
        }
        drivers.values().forEach(ExamplePlugin::stop);
        cluster.close();
    }
}
