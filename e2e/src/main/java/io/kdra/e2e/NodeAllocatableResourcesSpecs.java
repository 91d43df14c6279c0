package io.kdra.e2e;

import static io.kdra.e2e.NodeAllocatableScenario.CLAIM_CPU_MEM;
import static io.kdra.e2e.NodeAllocatableScenario.CLAIM_CPU_MEM_2;
import static io.kdra.e2e.NodeAllocatableScenario.CLAIM_HUGEPAGES;
import static io.kdra.e2e.NodeAllocatableScenario.HUGEPAGES_2MI;
import static io.kdra.e2e.NodeAllocatableScenario.REQ_1CPU_1GI;
import static io.kdra.e2e.NodeAllocatableScenario.RES_100M_CPU_1GI;
import static io.kdra.e2e.NodeAllocatableScenario.RES_1CPU_1GI;
import static io.kdra.e2e.NodeAllocatableScenario.RES_1CPU_1GI_GUARANTEED;
import static io.kdra.e2e.NodeAllocatableScenario.RES_2500M_2500MI;
import static io.kdra.e2e.NodeAllocatableScenario.RES_2CPU_2GI;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.kdra.e2e.CgroupChecks.ContainerResources;
import io.kdra.e2e.NodeAllocatableScenario.ContainerInfo;
import io.kdra.framework.Builder;
import io.kdra.framework.DraSpec;
import io.kdra.framework.Driver;
import io.kdra.framework.Framework;
import io.kdra.framework.Nodes;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * dra_node_allocatable_resources.go: devices whose {@code nodeAllocatableResources} (a {@code deviceMultiplier}
 * mapping, per-pod or per-container overhead) raise the pod's and the containers' CPU, memory and hugepages cgroup
 * values, and the containers' {@code oom_score_adj} follows (Guaranteed -997, BestEffort 1000, Burstable from the
 * memory request). The values are read through exec from the pod's and the containers' cgroups; on the embedded
 * cluster they are the simulated kubelet's computed values, not limits a kernel enforces.
 */
@DraSpec
@DisplayName("[sig-node] [DRA] Node Allocatable Resources [Feature:DynamicResourceAllocation]"
        + " [FeatureGate:DRANodeAllocatableResources]")
@Tag("sig-node")
@Tag("DRA")
@Tag("Feature:DynamicResourceAllocation")
@Tag("FeatureGate:DRANodeAllocatableResources")
class NodeAllocatableResourcesSpecs {

    final Framework f = Framework.create("dra-node-allocatable-resources");

    /** One spec: the devices, the pod, and the cgroup values and OOM scores it must get. */
    record Case(List<Device> resourceSliceDevices, ContainerResources podResources, List<ContainerInfo> containers,
            List<String> unreferencedClaims, ContainerResources expectedPodCgroup,
            List<ContainerResources> expectedContainersCgroup, List<Long> expectedContainersScoreMemRequest,
            String expectedPodHugepagesLimit, List<String> expectedContainerHugepagesLimits) {

        Case(List<Device> devices, ContainerResources podResources, List<ContainerInfo> containers,
                List<String> unreferencedClaims, ContainerResources pod, List<ContainerResources> containersCgroup,
                List<Long> scoreMemRequests) {
            this(devices, podResources, containers, unreferencedClaims, pod, containersCgroup, scoreMemRequests,
                    null, null);
        }

        boolean requiresHugepages() {
            return expectedPodHugepagesLimit != null;
        }
    }

    @Test
    @DisplayName("verifies cgroup inflation and container OOM adjustment with direct mappings")
    void directMappings() throws Exception {
        // containers: their own limits plus the whole claim; pod: both containers plus the claim once;
        // OOM: 1024Mi requested plus half of the 1000Mi mapped
        run(new Case(NodeAllocatableScenario.directDevices(), null,
                List.of(new ContainerInfo("c1", RES_1CPU_1GI, CLAIM_CPU_MEM),
                        new ContainerInfo("c2", RES_1CPU_1GI, CLAIM_CPU_MEM)),
                List.of(), cgroup("3000m", "5000m", "5096Mi"),
                List.of(cgroup("1000m", "3000m", "3048Mi"), cgroup("1000m", "3000m", "3048Mi")),
                List.of(1524L, 1524L)));
    }

    @Test
    @DisplayName("verifies cgroup inflation and container OOM adjustment with overhead mappings")
    void overheadMappings() throws Exception {
        // the per-pod overhead counts once for the pod but fully in each container's limits
        run(new Case(NodeAllocatableScenario.overheadDevices(), null,
                List.of(new ContainerInfo("c1", RES_1CPU_1GI, CLAIM_CPU_MEM),
                        new ContainerInfo("c2", RES_1CPU_1GI, CLAIM_CPU_MEM)),
                List.of(), cgroup("2300m", "4300m", "4396Mi"),
                List.of(cgroup("1000m", "2200m", "2248Mi"), cgroup("1000m", "2200m", "2248Mi")),
                List.of(1174L, 1174L)));
    }

    @Test
    @DisplayName("verifies cgroup inflation and container OOM adjustment with combined direct and overhead mappings")
    void combinedDirectAndOverheadMappings() throws Exception {
        run(new Case(NodeAllocatableScenario.combinedDevices(), null,
                List.of(new ContainerInfo("c1", RES_1CPU_1GI, CLAIM_CPU_MEM, CLAIM_CPU_MEM_2),
                        new ContainerInfo("c2", RES_1CPU_1GI, CLAIM_CPU_MEM, CLAIM_CPU_MEM_2)),
                List.of(), cgroup("3300m", "5300m", "5396Mi"),
                List.of(cgroup("1000m", "3200m", "3248Mi"), cgroup("1000m", "3200m", "3248Mi")),
                List.of(1674L, 1674L)));
    }

    @Test
    @DisplayName("verifies cgroup inflation and container OOM adjustment with single device with both mapping and"
            + " overhead")
    void singleDeviceWithBothMappingAndOverhead() throws Exception {
        run(new Case(NodeAllocatableScenario.mappingAndOverheadDevice(), null,
                List.of(new ContainerInfo("c1", RES_1CPU_1GI, CLAIM_CPU_MEM),
                        new ContainerInfo("c2", RES_1CPU_1GI, CLAIM_CPU_MEM)),
                List.of(), cgroup("3300m", "5300m", "5396Mi"),
                List.of(cgroup("1000m", "3200m", "3248Mi"), cgroup("1000m", "3200m", "3248Mi")),
                List.of(1674L, 1674L)));
    }

    @Test
    @DisplayName("verifies cgroup inflation and container OOM adjustment with unreferenced overhead claim")
    void unreferencedOverheadClaim() throws Exception {
        // only the pod gets the per-pod overhead; the containers keep their own limits
        run(new Case(NodeAllocatableScenario.overheadDevices(), null,
                List.of(new ContainerInfo("c1", RES_1CPU_1GI), new ContainerInfo("c2", RES_1CPU_1GI)),
                List.of(CLAIM_CPU_MEM), cgroup("2100m", "4100m", "4196Mi"),
                List.of(cgroup("1000m", "2", "2Gi"), cgroup("1000m", "2", "2Gi")),
                List.of(1024L, 1024L)));
    }

    @Test
    @DisplayName("verifies cgroup inflation and container OOM adjustment with pod-level resources specified,"
            + " container-level limits omitted")
    void podLevelResourcesSpecifiedContainerLevelLimitsOmitted() throws Exception {
        // the pod-level resources are the pod's cgroup; containers without limits inherit the pod-level limits
        run(new Case(NodeAllocatableScenario.directDevices(), RES_2CPU_2GI,
                List.of(new ContainerInfo("c1", null, CLAIM_CPU_MEM), new ContainerInfo("c2", null, CLAIM_CPU_MEM)),
                List.of(), cgroup("2000m", "4000m", "4096Mi"),
                List.of(cgroup(null, "4", "4Gi"), cgroup(null, "4", "4Gi")),
                List.of(1024L, 1024L)));
    }

    @Test
    @DisplayName("verifies cgroup inflation and container OOM adjustment with pod-level resources specified,"
            + " container-level limits specified")
    void podLevelResourcesSpecifiedContainerLevelLimitsSpecified() throws Exception {
        // OOM: each container's effective request (1174Mi) plus its share of the pod-level rest ((2500-2348)/2)
        run(new Case(NodeAllocatableScenario.overheadDevices(), RES_2500M_2500MI,
                List.of(new ContainerInfo("c1", RES_1CPU_1GI, CLAIM_CPU_MEM),
                        new ContainerInfo("c2", RES_1CPU_1GI, CLAIM_CPU_MEM)),
                List.of(), cgroup("2500m", "4000m", "4096Mi"),
                List.of(cgroup("1000m", "2200m", "2248Mi"), cgroup("1000m", "2200m", "2248Mi")),
                List.of(1250L, 1250L)));
    }

    @Test
    @DisplayName("verifies cgroup inflation and container OOM adjustment with hugepages overhead mapping")
    void hugepagesOverheadMapping() throws Exception {
        // pod: 2Mi requested + 100Mi per pod + 2 x 50Mi per container; containers: their own + 50Mi + 100Mi
        run(new Case(NodeAllocatableScenario.hugepageDevices(), null,
                List.of(new ContainerInfo("c1", RES_1CPU_1GI, List.of(CLAIM_HUGEPAGES), "2Mi"),
                        new ContainerInfo("c2", RES_1CPU_1GI, CLAIM_HUGEPAGES)),
                List.of(), cgroup("2000m", "4000m", "4096Mi"),
                List.of(cgroup("1000m", "2000m", "2Gi"), cgroup("1000m", "2000m", "2Gi")),
                List.of(1024L, 1024L), "211812352", List.of("159383552", "157286400")));
    }

    @Test
    @DisplayName("verifies cgroup inflation and container OOM adjustment with container-level requests and limits"
            + " omitted (BestEffort)")
    void containerLevelRequestsAndLimitsOmittedBestEffort() throws Exception {
        run(new Case(NodeAllocatableScenario.directDevices(), null,
                List.of(new ContainerInfo("c1", null, CLAIM_CPU_MEM), new ContainerInfo("c2", null, CLAIM_CPU_MEM)),
                List.of(), cgroup(null, null, null), List.of(cgroup(null, null, null), cgroup(null, null, null)),
                List.of(0L, 0L)));
    }

    @Test
    @DisplayName("verifies cgroup inflation and container OOM adjustment with container-level CPU/Memory limits"
            + " omitted (Burstable)")
    void containerLevelCPUMemoryLimitsOmittedBurstable() throws Exception {
        run(new Case(NodeAllocatableScenario.directDevices(), null,
                List.of(new ContainerInfo("c1", REQ_1CPU_1GI, CLAIM_CPU_MEM),
                        new ContainerInfo("c2", REQ_1CPU_1GI, CLAIM_CPU_MEM)),
                List.of(), cgroup("3000m", null, null),
                List.of(cgroup("1000m", null, null), cgroup("1000m", null, null)),
                List.of(1524L, 1524L)));
    }

    @Test
    @DisplayName("verifies cgroup inflation and container OOM adjustment with hugepages overhead mapping with"
            + " container limits omitted")
    void hugepagesOverheadMappingWithContainerLimitsOmitted() throws Exception {
        run(new Case(NodeAllocatableScenario.hugepageDevices(), null,
                List.of(new ContainerInfo("c1", null, CLAIM_HUGEPAGES),
                        new ContainerInfo("c2", null, CLAIM_HUGEPAGES)),
                List.of(), cgroup(null, null, null), List.of(cgroup(null, null, null), cgroup(null, null, null)),
                List.of(0L, 0L), "209715200", List.of("157286400", "157286400")));
    }

    @Test
    @DisplayName("verifies cgroup inflation and container OOM adjustment with Guaranteed QoS pod with direct mapping")
    void guaranteedQoSPodWithDirectMapping() throws Exception {
        run(new Case(NodeAllocatableScenario.directDevices(), null,
                List.of(new ContainerInfo("c1", RES_1CPU_1GI_GUARANTEED, CLAIM_CPU_MEM),
                        new ContainerInfo("c2", RES_1CPU_1GI_GUARANTEED, CLAIM_CPU_MEM)),
                List.of(), cgroup("3000m", "3000m", "3048Mi"),
                List.of(cgroup("1000m", "2000m", "2024Mi"), cgroup("1000m", "2000m", "2024Mi")),
                List.of(0L, 0L)));
    }

    @Test
    @DisplayName("verifies cgroup inflation and container OOM adjustment with direct mapping multiple claims")
    void directMappingMultipleClaims() throws Exception {
        // each container gets the device of its own claim
        run(new Case(NodeAllocatableScenario.directDevices2(), null,
                List.of(new ContainerInfo("c1", RES_100M_CPU_1GI, CLAIM_CPU_MEM),
                        new ContainerInfo("c2", RES_100M_CPU_1GI, CLAIM_CPU_MEM_2)),
                List.of(), cgroup("400m", "600m", "7096Mi"),
                List.of(cgroup("100m", "300m", "3048Mi"), cgroup("100m", "300m", "4048Mi")),
                List.of(2024L, 3024L)));
    }

    private void run(Case tc) throws Exception {
        Nodes nodes = Nodes.now(f, 1, 4);
        if (tc.requiresHugepages()) {
            Node node = f.client().nodes().withName(nodes.nodeNames().get(0)).get();
            Quantity limit = node.getStatus().getAllocatable().get(HUGEPAGES_2MI);
            Assumptions.assumeTrue(limit != null && Quantity.getAmountInBytes(limit).signum() > 0,
                    "Skipping hugepages test because Node does not support hugepages-2Mi");
        }
        Driver driver = Driver.instance(f);
        Builder b = Builder.now(f, driver);
        NodeAllocatableScenario.runDriver(driver, nodes, tc.resourceSliceDevices());

        Map<String, ResourceClaim> createdClaims =
                NodeAllocatableScenario.createClaims(b, tc.containers(), tc.unreferencedClaims());
        Pod pod = NodeAllocatableScenario.makeTestPod(f, tc.podResources(), tc.containers(), tc.unreferencedClaims(),
                createdClaims);

        f.by("creating pod and waiting for it to be running");
        pod = NodeAllocatableScenario.createSync(f, b, pod);

        f.by("verifying pod cgroup limits on the node");
        CgroupChecks.verifyPodCgroups(f, pod, tc.expectedPodCgroup());

        f.by("verifying containers cgroup limits on the node");
        List<Container> containers = pod.getSpec().getContainers();
        for (int i = 0; i < containers.size(); i++) {
            CgroupChecks.verifyContainerCgroupValues(f, pod, containers.get(i).getName(),
                    expectedContainer(tc.expectedContainersCgroup().get(i), containers.get(i)));
        }

        if (tc.requiresHugepages()) {
            f.by("verifying pod hugepages limits on the node");
            CgroupChecks.verifyPodHugepagesLimit(f, pod, "2MB", tc.expectedPodHugepagesLimit());
            f.by("verifying containers hugepages limits on the node");
            for (int i = 0; i < containers.size(); i++) {
                CgroupChecks.verifyContainerHugepagesLimit(f, pod, containers.get(i).getName(), "2MB",
                        tc.expectedContainerHugepagesLimits().get(i));
            }
        }

        f.by("verifying containers oom_score_adj matches QoS rules with overhead");
        long nodeMemoryBytes = NodeAllocatableScenario.nodeMemoryBytes(f, pod);
        String qosClass = pod.getStatus().getQosClass();
        for (int i = 0; i < containers.size(); i++) {
            long expectedScore = switch (qosClass) {
                case "Guaranteed" -> -997;
                case "BestEffort" -> 1000;
                default -> CgroupChecks.expectedBurstableOomScoreAdj(tc.expectedContainersScoreMemRequest().get(i),
                        nodeMemoryBytes);
            };
            CgroupChecks.verifyOomScoreAdjValue(f, pod, containers.get(i).getName(), Long.toString(expectedScore));
        }

        f.by("deleting pods");
        b.deletePodAndWaitForNotFound(pod);
    }

    /** The expected values as a container's resources; without expected requests, the container's own. */
    static ResourceRequirements expectedContainer(ContainerResources expected, Container container) {
        ResourceRequirements requirements = expected.requirements();
        if (requirements.getRequests() == null) {
            requirements.setRequests(container.getResources() == null ? null
                    : container.getResources().getRequests());
        }
        return requirements;
    }

    static ContainerResources cgroup(String cpuReq, String cpuLim, String memLim) {
        return new ContainerResources(cpuReq, cpuLim, null, memLim);
    }
}
