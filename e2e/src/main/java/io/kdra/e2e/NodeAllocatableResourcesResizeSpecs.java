package io.kdra.e2e;

import static io.kdra.e2e.NodeAllocatableResourcesSpecs.cgroup;
import static io.kdra.e2e.NodeAllocatableScenario.CLAIM_CPU_MEM;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.kdra.e2e.CgroupChecks.ContainerResources;
import io.kdra.e2e.NodeAllocatableScenario.ContainerInfo;
import io.kdra.framework.Builder;
import io.kdra.framework.DraSpec;
import io.kdra.framework.Driver;
import io.kdra.framework.Framework;
import io.kdra.framework.Nodes;
import io.kdra.framework.Pods;
import io.kdra.framework.Waits;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * dra_node_allocatable_resources.go, "resize": in-place resizes (through {@code pods/resize}) of pods whose devices
 * declare node allocatable resources: the kubelet recomputes the pod's and the containers' cgroup values, devices
 * included, and reports the pod's allocated resources (with the devices' share unless pod-level resources are set).
 */
@DraSpec
@DisplayName("[sig-node] [DRA] Node Allocatable Resources [Feature:DynamicResourceAllocation]"
        + " [FeatureGate:DRANodeAllocatableResources]"
        + " resize [FeatureGate:InPlacePodLevelResourcesVerticalScaling]")
@Tag("sig-node")
@Tag("DRA")
@Tag("Feature:DynamicResourceAllocation")
@Tag("FeatureGate:DRANodeAllocatableResources")
@Tag("FeatureGate:InPlacePodLevelResourcesVerticalScaling")
class NodeAllocatableResourcesResizeSpecs {

    private static final ContainerResources RES_1CPU_1GI = new ContainerResources("1", "2", "1Gi", "2Gi");
    private static final ContainerResources RES_2CPU_2GI = new ContainerResources("2", "4", "2Gi", "4Gi");

    final Framework f = Framework.create("dra-node-allocatable-resources");

    /** One spec: the pod before and after the resize, and what the cgroups and the pod's status must then show. */
    record Case(List<Device> resourceSliceDevices, ContainerResources podResources,
            ContainerResources desiredPodResources, List<ContainerInfo> containers,
            List<ContainerInfo> desiredContainers, ContainerResources expectedPodCgroupAfterResize,
            List<ContainerResources> expectedContainersCgroupAfterResize,
            Map<String, String> expectedPodAllocatedResourcesAfterResize) {}

    @Test
    @DisplayName("verifies cgroup settings and pod status after resize with direct mappings with resize")
    void directMappingsWithResize() throws Exception {
        // pod: the resized container plus the mapped 1 CPU and 1000Mi; allocated: requests plus the devices
        run(new Case(NodeAllocatableScenario.directDevices(), null, null,
                List.of(new ContainerInfo("c1", new ContainerResources("500m", "1000m", "500Mi", "1000Mi"),
                        CLAIM_CPU_MEM)),
                List.of(new ContainerInfo("c1", new ContainerResources("500m", "1500m", "1000Mi", "2000Mi"),
                        CLAIM_CPU_MEM)),
                cgroup("1500m", "2500m", "3000Mi"), List.of(cgroup("500m", "2500m", "3000Mi")),
                Map.of("cpu", "1500m", "memory", "2000Mi")));
    }

    @Test
    @DisplayName("verifies cgroup settings and pod status after resize with overhead mappings with resize")
    void overheadMappingsWithResize() throws Exception {
        run(new Case(NodeAllocatableScenario.overheadDevices(), null, null,
                List.of(new ContainerInfo("c1", RES_1CPU_1GI, CLAIM_CPU_MEM)),
                List.of(new ContainerInfo("c1", new ContainerResources("1500m", "2500m", "1500Mi", "3000Mi"),
                        CLAIM_CPU_MEM)),
                cgroup("1700m", "2700m", "3200Mi"), List.of(cgroup("1500m", "2700m", "3200Mi")),
                Map.of("cpu", "1700m", "memory", "1700Mi")));
    }

    @Test
    @DisplayName("verifies cgroup settings and pod status after resize with pod-level resources resize with container"
            + " level request/limit omitted")
    void podLevelResourcesResizeWithContainerLevelRequestLimitOmitted() throws Exception {
        // the container without limits follows the resized pod-level limits
        run(new Case(NodeAllocatableScenario.directDevices(), RES_2CPU_2GI,
                new ContainerResources("3", "5", "3Gi", "5Gi"),
                List.of(new ContainerInfo("c1", null, CLAIM_CPU_MEM)),
                List.of(new ContainerInfo("c1", null, CLAIM_CPU_MEM)),
                cgroup("3000m", "5000m", "5120Mi"), List.of(cgroup(null, "5", "5Gi")),
                Map.of("cpu", "3", "memory", "3Gi")));
    }

    @Test
    @DisplayName("verifies cgroup settings and pod status after resize with Pod level resize, container level"
            + " request/limit present")
    void podLevelResizeContainerLevelRequestLimitPresent() throws Exception {
        run(new Case(NodeAllocatableScenario.directDevices(), RES_2CPU_2GI,
                new ContainerResources("3", "6", "3Gi", "6Gi"),
                List.of(new ContainerInfo("c1", RES_1CPU_1GI, CLAIM_CPU_MEM)),
                List.of(new ContainerInfo("c1", RES_1CPU_1GI, CLAIM_CPU_MEM)),
                cgroup("3000m", "6000m", "6Gi"), List.of(cgroup("1000m", "3000m", "3048Mi")),
                Map.of("cpu", "3", "memory", "3Gi")));
    }

    @Test
    @DisplayName("verifies cgroup settings and pod status after resize with pod level resources present, container"
            + " level resize")
    void podLevelResourcesPresentContainerLevelResize() throws Exception {
        // the pod's cgroup stays; the container's gets its new limits plus the devices
        run(new Case(NodeAllocatableScenario.directDevices(), RES_2CPU_2GI, RES_2CPU_2GI,
                List.of(new ContainerInfo("c1", null, CLAIM_CPU_MEM)),
                List.of(new ContainerInfo("c1", RES_1CPU_1GI, CLAIM_CPU_MEM)),
                cgroup("2000m", "4000m", "4Gi"), List.of(cgroup("1000m", "3000m", "3048Mi")),
                Map.of("cpu", "2", "memory", "2Gi")));
    }

    private void run(Case tc) throws Exception {
        Nodes nodes = Nodes.now(f, 1, 4);
        Driver driver = Driver.instance(f);
        Builder b = Builder.now(f, driver);
        NodeAllocatableScenario.runDriver(driver, nodes, tc.resourceSliceDevices());

        Map<String, ResourceClaim> createdClaims = NodeAllocatableScenario.createClaims(b, tc.containers(), List.of());
        Pod pod = NodeAllocatableScenario.makeTestPod(f, tc.podResources(), tc.containers(), List.of(),
                createdClaims);

        f.by("creating pod and waiting for it to be running");
        pod = NodeAllocatableScenario.createSync(f, b, pod);

        f.by("patching the pod for resize");
        Pod patchedPod = f.client().pods().inNamespace(f.namespace()).withName(pod.getMetadata().getName())
                .subresource("resize").patch(PatchContext.of(PatchType.STRATEGIC_MERGE),
                        resizePatch(tc.desiredContainers(), tc.desiredPodResources()));

        f.by("waiting for resize actuation to complete");
        Pod resizedPod = waitForPodResizeActuation(pod);

        f.by("verifying updated pod cgroup limits after resize");
        CgroupChecks.verifyPodCgroups(f, resizedPod, tc.expectedPodCgroupAfterResize());

        f.by("verifying updated container cgroup limits after resize");
        List<Container> containers = resizedPod.getSpec().getContainers();
        for (int i = 0; i < containers.size(); i++) {
            CgroupChecks.verifyContainerCgroupValues(f, resizedPod, containers.get(i).getName(),
                    NodeAllocatableResourcesSpecs.expectedContainer(tc.expectedContainersCgroupAfterResize().get(i),
                            containers.get(i)));
        }

        f.by("verifying pod status updates match spec after resize");
        Map<String, Quantity> expectedAllocated = new LinkedHashMap<>();
        tc.expectedPodAllocatedResourcesAfterResize().forEach((name, amount) ->
                expectedAllocated.put(name, new Quantity(amount)));
        assertThat(CgroupChecks.sameQuantities(resizedPod.getStatus().getAllocatedResources(), expectedAllocated))
                .as("pod %s status allocatedResources %s, want %s", resizedPod.getMetadata().getName(),
                        resizedPod.getStatus().getAllocatedResources(), expectedAllocated)
                .isTrue();

        f.by("verifying pod spec resources after patch");
        verifyPodResources(patchedPod, tc.desiredContainers(), tc.desiredPodResources());

        f.by("deleting pods");
        b.deletePodAndWaitForNotFound(resizedPod);
    }

    /** A strategic merge patch setting the desired containers' and the pod's resources. */
    private String resizePatch(List<ContainerInfo> desiredContainers, ContainerResources desiredPodResources) {
        List<Map<String, Object>> containers = new ArrayList<>();
        for (ContainerInfo container : desiredContainers) {
            Map<String, Object> patch = new LinkedHashMap<>();
            patch.put("name", container.name());
            if (container.resources() != null) {
                patch.put("resources", patchOf(container.resources()));
            }
            containers.add(patch);
        }
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("containers", containers);
        if (desiredPodResources != null) {
            spec.put("resources", patchOf(desiredPodResources));
        }
        return f.client().getKubernetesSerialization().asJson(Map.of("spec", spec));
    }

    /** Requests and limits as plain maps: the containers' claims stay as they are. */
    private static Map<String, Object> patchOf(ContainerResources resources) {
        ResourceRequirements requirements = resources.requirements();
        Map<String, Object> patch = new LinkedHashMap<>();
        for (var list : Map.of("requests", requirements.getRequests() == null ? Map.<String, Quantity>of()
                : requirements.getRequests(), "limits", requirements.getLimits() == null
                ? Map.<String, Quantity>of() : requirements.getLimits()).entrySet()) {
            Map<String, String> amounts = new LinkedHashMap<>();
            list.getValue().forEach((name, quantity) -> amounts.put(name, quantity.toString()));
            if (!amounts.isEmpty()) {
                patch.put(list.getKey(), amounts);
            }
        }
        return patch;
    }

    /**
     * Waits until the kubelet has actuated the resize: no pending or in-progress resize, and the resources the pod's
     * status reports (each container's, and the pod-level ones) are those of its spec.
     */
    private Pod waitForPodResizeActuation(Pod pod) {
        Callable<Pod> get = Pods.get(f, pod);
        Pod[] resized = new Pod[1];
        Waits.until("resize of pod " + pod.getMetadata().getName() + " actuated", f.timeouts().podStart())
                .until(() -> {
                    Pod current = get.call();
                    if (current == null) {
                        return false;
                    }
                    for (PodCondition condition : current.getStatus().getConditions()) {
                        if ("PodResizePending".equals(condition.getType())
                                && "Infeasible".equals(condition.getReason())) {
                            throw new AssertionError("resize is infeasible: " + condition.getMessage());
                        }
                        if ("PodResizePending".equals(condition.getType())
                                || "PodResizeInProgress".equals(condition.getType())) {
                            return false;
                        }
                    }
                    resized[0] = current;
                    return statusResourcesMatchSpec(current);
                });
        return resized[0];
    }

    private static boolean statusResourcesMatchSpec(Pod pod) {
        for (Container container : pod.getSpec().getContainers()) {
            ContainerStatus status = pod.getStatus().getContainerStatuses().stream()
                    .filter(s -> s.getName().equals(container.getName())).findFirst().orElse(null);
            if (status == null || !sameRequirements(status.getResources(), container.getResources())) {
                return false;
            }
        }
        ResourceRequirements podLevel = pod.getSpec().getResources();
        return podLevel == null || sameRequirements(pod.getStatus().getResources(), podLevel);
    }

    /** The pod's spec holds the desired resources. */
    private static void verifyPodResources(Pod pod, List<ContainerInfo> desiredContainers,
            ContainerResources desiredPodResources) {
        for (ContainerInfo desired : desiredContainers) {
            Container container = pod.getSpec().getContainers().stream()
                    .filter(c -> c.getName().equals(desired.name())).findFirst().orElseThrow();
            ResourceRequirements want = desired.resources() == null ? new ResourceRequirements()
                    : desired.resources().requirements();
            assertThat(sameRequirements(container.getResources(), want))
                    .as("container %s resources %s, want %s", desired.name(), container.getResources(), want)
                    .isTrue();
        }
        if (desiredPodResources != null) {
            assertThat(sameRequirements(pod.getSpec().getResources(), desiredPodResources.requirements()))
                    .as("pod resources %s, want %s", pod.getSpec().getResources(), desiredPodResources)
                    .isTrue();
        }
    }

    private static boolean sameRequirements(ResourceRequirements got, ResourceRequirements want) {
        return CgroupChecks.sameQuantities(got == null ? null : got.getRequests(),
                want == null ? null : want.getRequests())
                && CgroupChecks.sameQuantities(got == null ? null : got.getLimits(),
                        want == null ? null : want.getLimits());
    }
}
