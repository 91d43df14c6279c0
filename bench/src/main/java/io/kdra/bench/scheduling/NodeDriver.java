package io.kdra.bench.scheduling;

import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.kdra.cluster.ClusterNode;
import io.kdra.plugin.ClaimRef;
import io.kdra.plugin.DraPlugin;
import io.kdra.plugin.KubeletPlugin;
import io.kdra.plugin.PrepareResult;
import io.kdra.plugin.PreparedDevice;
import io.kdra.plugin.UnprepareResult;
import io.kdra.plugin.cdi.CdiDevice;
import io.kdra.plugin.cdi.CdiSpec;
import io.kdra.plugin.cdi.ContainerEdits;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

/**
 * The benchmark's DRA driver on one node, in the way a device driver with a fixed inventory works: one CDI spec file
 * for all its devices written at start, a ResourceSlice published once (as scheduler_perf's
 * {@code createResourceDriver} does), and NodePrepareResources answering with the allocated devices' CDI IDs without
 * touching the disk. The kubelet calls it over real gRPC on the node's Unix sockets, and the plugin library fetches
 * each claim from the API server, so a pod is Running only after its claim was really prepared.
 */
final class NodeDriver implements DraPlugin, AutoCloseable {

    static final String DRIVER = "test-driver.cdi.k8s.io";
    private static final String CDI_CLASS = "test";

    private final String nodeName;
    private final KubeletPlugin plugin;
    private final KubernetesClient client;
    private final int devices;

    private NodeDriver(ClusterNode node, KubernetesClient client, int devices) throws IOException {
        this.nodeName = node.name();
        writeCdiSpec(node, devices);
        this.plugin = KubeletPlugin.builder(DRIVER, this)
                .nodeName(node.name())
                .kubernetesClient(client)
                .registrarDirectory(node.pluginsRegistryDirectory())
                .pluginDataDirectory(node.pluginsDirectory().resolve(DRIVER))
                .start();
        this.client = client;
        this.devices = devices;
        publish();
    }

    /**
     * Creates the node's ResourceSlice unless it exists. A kubelet wipes its node's slices when it starts, so under
     * load a slice created just after the kubelet started may be wiped late; the benchmark publishes again until
     * every slice is there (a real driver's publisher watches its slices for the same reason).
     */
    void publish() {
        try {
            client.resources(ResourceSlice.class).resource(slice(nodeName, devices)).create();
        } catch (KubernetesClientException e) {
            if (e.getCode() != 409) {
                throw e;
            }
        }
    }

    String nodeName() {
        return nodeName;
    }

    /** Starts the driver on the node: writes its CDI spec, serves the kubelet's sockets, publishes its slice. */
    static NodeDriver start(ClusterNode node, int devices) throws IOException {
        return new NodeDriver(node, node.driverClient("kube-system", "kdra-bench-driver"), devices);
    }

    static String deviceName(int index) {
        return String.format("device-%02d", index);
    }

    boolean isRegistered() {
        return plugin.registrationStatus().map(status -> status.registered()).orElse(false);
    }

    private static void writeCdiSpec(ClusterNode node, int devices) throws IOException {
        List<CdiDevice> cdiDevices = IntStream.range(0, devices).mapToObj(i -> new CdiDevice(deviceName(i),
                ContainerEdits.ofEnv(List.of("DRA_DEVICE=" + deviceName(i))))).toList();
        Files.createDirectories(node.cdiDirectory());
        Files.write(node.cdiDirectory().resolve(DRIVER + ".json"),
                CdiSpec.of("0.3.0", DRIVER + "/" + CDI_CLASS, cdiDevices).toJson());
    }

    private static ResourceSlice slice(String node, int devices) {
        return new ResourceSliceBuilder().withNewMetadata().withName(node + "-" + DRIVER).endMetadata()
                .withNewSpec().withDriver(DRIVER).withNodeName(node)
                .withNewPool().withName(node).withGeneration(1L).withResourceSliceCount(1L).endPool()
                .withDevices(IntStream.range(0, devices).mapToObj(i -> new DeviceBuilder().withName(deviceName(i))
                        .build()).toList())
                .endSpec().build();
    }

    @Override
    public Map<String, PrepareResult> prepareResourceClaims(List<ResourceClaim> claims) {
        Map<String, PrepareResult> results = new HashMap<>();
        for (ResourceClaim claim : claims) {
            List<PreparedDevice> devices = new ArrayList<>();
            for (DeviceRequestAllocationResult result : claim.getStatus().getAllocation().getDevices().getResults()) {
                if (DRIVER.equals(result.getDriver()) && nodeName.equals(result.getPool())) {
                    devices.add(new PreparedDevice(List.of(result.getRequest()), result.getPool(), result.getDevice(),
                            List.of(DRIVER + "/" + CDI_CLASS + "=" + result.getDevice())));
                }
            }
            results.put(claim.getMetadata().getUid(), PrepareResult.prepared(devices));
        }
        return results;
    }

    @Override
    public Map<String, UnprepareResult> unprepareResourceClaims(List<ClaimRef> claims) {
        Map<String, UnprepareResult> results = new HashMap<>();
        claims.forEach(claim -> results.put(claim.uid(), UnprepareResult.unprepared()));
        return results;
    }

    @Override
    public void close() {
        plugin.close();
    }
}
