package io.kdra.e2e;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.NodeAllocatableMappingBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.NodeAllocatableOverheadBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.NodeAllocatableResource;
import io.fabric8.kubernetes.api.model.resource.v1.NodeAllocatableResourceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.kdra.e2e.CgroupChecks.ContainerResources;
import io.kdra.framework.Builder;
import io.kdra.framework.Driver;
import io.kdra.framework.Framework;
import io.kdra.framework.Nodes;
import io.kdra.framework.Pods;
import io.kdra.plugin.resourceslice.DriverResources;
import io.kdra.plugin.resourceslice.Pool;
import io.kdra.plugin.resourceslice.Slice;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What both groups of dra_node_allocatable_resources.go share: the devices with node allocatable resources, the
 * containers' resources and claims, a driver publishing the devices on one node, and the pod {@code tester-1} whose
 * containers reference the claims.
 */
final class NodeAllocatableScenario {

    static final String CLAIM_CPU_MEM = "cpu-mem-claim";
    static final String CLAIM_CPU_MEM_2 = "cpu-mem-claim-2";
    static final String CLAIM_HUGEPAGES = "hugepages-claim";
    static final String HUGEPAGES_2MI = "hugepages-2Mi";

    static final ContainerResources RES_100M_CPU_1GI = new ContainerResources("100m", "200m", "1Gi", "2Gi");
    static final ContainerResources RES_1CPU_1GI = new ContainerResources("1", "2", "1Gi", "2Gi");
    static final ContainerResources RES_2CPU_2GI = new ContainerResources("2", "4", "2Gi", "4Gi");
    static final ContainerResources RES_2500M_2500MI = new ContainerResources("2500m", "4", "2500Mi", "4Gi");
    static final ContainerResources REQ_1CPU_1GI = new ContainerResources("1000m", null, "1Gi", null);
    static final ContainerResources RES_1CPU_1GI_GUARANTEED = new ContainerResources("1", "1", "1Gi", "1Gi");

    private NodeAllocatableScenario() {}

    /** A container of the test pod: its resources (none when null), the claims it uses, its hugepages. */
    record ContainerInfo(String name, ContainerResources resources, List<String> claims, String hugepageReqLim) {
        ContainerInfo(String name, ContainerResources resources, String... claims) {
            this(name, resources, List.of(claims), null);
        }
    }

    /** One device, memory and CPU each mapped one to one per device. */
    static List<Device> directDevices() {
        return List.of(device("device-01", Map.of("memory", mapping("1000Mi"), "cpu", mapping("1"))));
    }

    /** Two devices with different memory mappings. */
    static List<Device> directDevices2() {
        return List.of(device("device-01", Map.of("memory", mapping("1000Mi"), "cpu", mapping("100m"))),
                device("device-02", Map.of("memory", mapping("2000Mi"), "cpu", mapping("100m"))));
    }

    /** One device with 100Mi and 100m of overhead per pod and per container. */
    static List<Device> overheadDevices() {
        return List.of(device("device-01", Map.of("memory", overhead("100Mi", "100Mi"),
                "cpu", overhead("100m", "100m"))));
    }

    /** A direct device and an overhead device. */
    static List<Device> combinedDevices() {
        return List.of(device("device-direct-01", Map.of("memory", mapping("1000Mi"), "cpu", mapping("1"))),
                device("device-overhead-01", Map.of("memory", overhead("100Mi", "100Mi"),
                        "cpu", overhead("100m", "100m"))));
    }

    /** One device with both a mapping and an overhead for each resource. */
    static List<Device> mappingAndOverheadDevice() {
        return List.of(device("device-mapping-overhead-01", Map.of(
                "memory", new NodeAllocatableResourceBuilder(mapping("1000Mi"))
                        .withOverhead(overhead("100Mi", "100Mi").getOverhead()).build(),
                "cpu", new NodeAllocatableResourceBuilder(mapping("1"))
                        .withOverhead(overhead("100m", "100m").getOverhead()).build())));
    }

    /** One device with 2Mi hugepages overhead: 100Mi per pod, 50Mi per container. */
    static List<Device> hugepageDevices() {
        return List.of(device("device-hugepages-01", Map.of(HUGEPAGES_2MI, overhead("100Mi", "50Mi"))));
    }

    private static Device device(String name, Map<String, NodeAllocatableResource> resources) {
        return new DeviceBuilder().withName(name).withNodeAllocatableResources(new TreeMap<>(resources)).build();
    }

    private static NodeAllocatableResource mapping(String deviceMultiplier) {
        return new NodeAllocatableResourceBuilder().withMapping(new NodeAllocatableMappingBuilder()
                .withDeviceMultiplier(new Quantity(deviceMultiplier)).build()).build();
    }

    private static NodeAllocatableResource overhead(String perPod, String perContainer) {
        return new NodeAllocatableResourceBuilder().withOverhead(new NodeAllocatableOverheadBuilder()
                .withPerPod(new Quantity(perPod)).withPerContainer(new Quantity(perContainer)).build()).build();
    }

    /** Runs the driver on the node with one pool of these devices. */
    static void runDriver(Driver driver, Nodes nodes, List<Device> devices) throws IOException {
        String node = nodes.nodeNames().get(0);
        driver.run(nodes, Map.of(node, DriverResources.of(node, Pool.of(List.of(Slice.ofDevices(devices))))));
    }

    /** One external claim for each claim name the containers or the pod use, by that name. */
    static Map<String, ResourceClaim> createClaims(Builder b, List<ContainerInfo> containers,
            List<String> unreferencedClaims) {
        Map<String, ResourceClaim> created = new LinkedHashMap<>();
        for (String name : claimNames(containers, unreferencedClaims)) {
            created.put(name, b.create(b.externalClaim()));
        }
        return created;
    }

    /** The pod {@code tester-1}: the containers run a sleep loop, the first one sees the node's cgroups. */
    static Pod makeTestPod(Framework f, ContainerResources podResources, List<ContainerInfo> containers,
            List<String> unreferencedClaims, Map<String, ResourceClaim> createdClaims) {
        List<Container> testContainers = new ArrayList<>();
        for (ContainerInfo info : containers) {
            Container container = CgroupChecks.container(info.name(), info.resources(), CgroupChecks.SLEEP_LOOP);
            for (String claim : info.claims()) {
                container.getResources().getClaims().add(new ResourceClaimBuilder().withName(claim).build());
            }
            if (info.hugepageReqLim() != null) {
                if (container.getResources().getLimits() == null) {
                    container.getResources().setRequests(new LinkedHashMap<>());
                    container.getResources().setLimits(new LinkedHashMap<>());
                }
                container.getResources().getRequests().put(HUGEPAGES_2MI, new Quantity(info.hugepageReqLim()));
                container.getResources().getLimits().put(HUGEPAGES_2MI, new Quantity(info.hugepageReqLim()));
            }
            testContainers.add(container);
        }
        Pod pod = new PodBuilder().withNewMetadata().withName("tester-1").withNamespace(f.namespace()).endMetadata()
                .withNewSpec().withRestartPolicy("Never").withContainers(testContainers).endSpec().build();
        CgroupChecks.mountNodeCgroups(pod);
        if (podResources != null) {
            pod.getSpec().setResources(podResources.requirements());
        }
        for (String name : claimNames(containers, unreferencedClaims)) {
            ResourceClaim claim = createdClaims.get(name);
            pod.getSpec().getResourceClaims().add(new PodResourceClaimBuilder().withName(name)
                    .withResourceClaimName(claim == null ? null : claim.getMetadata().getName()).build());
        }
        return pod;
    }

    /** Creates the pod and waits until it runs; returns it as the API server has it now. */
    static Pod createSync(Framework f, Builder b, Pod pod) throws Exception {
        b.create(pod);
        Pods.waitForRunning(f, pod);
        return Pods.get(f, pod).call();
    }

    /** The node's memory capacity in bytes. */
    static long nodeMemoryBytes(Framework f, Pod pod) {
        Node node = f.client().nodes().withName(pod.getSpec().getNodeName()).get();
        return Quantity.getAmountInBytes(node.getStatus().getCapacity().get("memory")).longValueExact();
    }

    /** The claim names sorted, as upstream sorts the pod's claims. */
    private static List<String> claimNames(List<ContainerInfo> containers, List<String> unreferencedClaims) {
        TreeSet<String> names = new TreeSet<>(unreferencedClaims);
        containers.forEach(container -> names.addAll(container.claims()));
        return List.copyOf(names);
    }
}
