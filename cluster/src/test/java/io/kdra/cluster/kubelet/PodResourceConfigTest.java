package io.kdra.cluster.kubelet;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.NodeAllocatableMappedResources;
import io.fabric8.kubernetes.api.model.NodeAllocatableOverheadResources;
import io.fabric8.kubernetes.api.model.NodeAllocatableResourceClaimStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.kdra.cluster.runtime.LinuxResources;
import io.kdra.kube.FeatureGates;
import io.kdra.kube.KubernetesVersion;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The cases of upstream's dra_node_allocatable_resources.go, computed without a node: the pod's and the containers'
 * cgroup values and the containers' oom_score_adj on a node of 16Gi.
 */
class PodResourceConfigTest {

    private static final long MI = 1 << 20;
    private static final long GI = 1 << 30;
    private static final long CAPACITY = 16 * GI;
    private static final FeatureGates V1_36 = FeatureGates.defaults(new KubernetesVersion(1, 36));
    private static final FeatureGates V1_37 = FeatureGates.defaults(new KubernetesVersion(1, 37));

    private static final ClaimAllocatable DIRECT = claim("cpu-mem-claim", Map.of("cpu", 1000L, "memory", 1000 * MI),
            Map.of(), Map.of());
    private static final ClaimAllocatable OVERHEAD = claim("cpu-mem-claim", Map.of(),
            Map.of("cpu", 100L, "memory", 100 * MI), Map.of("cpu", 100L, "memory", 100 * MI));

    @Test
    void directMappingsInflateContainerLimitsAndThePodOnce() {
        Pod pod = pod(null, container("c1", "1", "2", "1Gi", "2Gi", "cpu-mem-claim"),
                container("c2", "1", "2", "1Gi", "2Gi", "cpu-mem-claim"));
        PodResourceConfig config = compute(pod, DIRECT);
        assertThat(config.qosClass()).isEqualTo("Burstable");
        assertCgroup(config.pod(), "3000m", "5000m", 5096 * MI);
        assertCgroup(config.containers().get("c1"), "1000m", "3000m", 3048 * MI);
        assertThat(config.containers().get("c1").oomScoreAdj()).isEqualTo(oom(1524));
        assertThat(config.containers().get("c2").oomScoreAdj()).isEqualTo(oom(1524));
    }

    @Test
    void overheadCountsPerPodOnceAndPerContainerForEachReference() {
        Pod pod = pod(null, container("c1", "1", "2", "1Gi", "2Gi", "cpu-mem-claim"),
                container("c2", "1", "2", "1Gi", "2Gi", "cpu-mem-claim"));
        PodResourceConfig config = compute(pod, OVERHEAD);
        assertCgroup(config.pod(), "2300m", "4300m", 4396 * MI);
        assertCgroup(config.containers().get("c2"), "1000m", "2200m", 2248 * MI);
        assertThat(config.containers().get("c1").oomScoreAdj()).isEqualTo(oom(1174));
    }

    @Test
    void combinedClaimsAddUp() {
        ClaimAllocatable overhead = claim("cpu-mem-claim-2", Map.of(), OVERHEAD.perPod(), OVERHEAD.perContainer());
        Pod pod = pod(null, container("c1", "1", "2", "1Gi", "2Gi", "cpu-mem-claim", "cpu-mem-claim-2"),
                container("c2", "1", "2", "1Gi", "2Gi", "cpu-mem-claim", "cpu-mem-claim-2"));
        PodResourceConfig config = compute(pod, DIRECT, overhead);
        assertCgroup(config.pod(), "3300m", "5300m", 5396 * MI);
        assertCgroup(config.containers().get("c1"), "1000m", "3200m", 3248 * MI);
        assertThat(config.containers().get("c1").oomScoreAdj()).isEqualTo(oom(1674));
    }

    @Test
    void anUnreferencedClaimAddsItsPodOverheadToThePodOnly() {
        Pod pod = pod(null, container("c1", "1", "2", "1Gi", "2Gi"), container("c2", "1", "2", "1Gi", "2Gi"));
        pod.getSpec().setResourceClaims(List.of(new PodResourceClaimBuilder()
                .withName("cpu-mem-claim").withResourceClaimName("claim-1").build()));
        PodResourceConfig config = compute(pod, OVERHEAD);
        assertCgroup(config.pod(), "2100m", "4100m", 4196 * MI);
        assertCgroup(config.containers().get("c1"), "1000m", "2", 2 * GI);
        assertThat(config.containers().get("c1").oomScoreAdj()).isEqualTo(oom(1024));
    }

    @Test
    void podLevelResourcesAreTakenAsTheyAreAndContainersWithoutLimitsInheritThem() {
        Pod pod = pod(resources("2", "4", "2Gi", "4Gi"), container("c1", null, null, null, null, "cpu-mem-claim"),
                container("c2", null, null, null, null, "cpu-mem-claim"));
        PodResourceConfig config = compute(pod, DIRECT);
        assertCgroup(config.pod(), "2000m", "4000m", 4 * GI);
        // no request: the shares follow the inherited limit
        assertCgroup(config.containers().get("c1"), "4", "4", 4 * GI);
        assertThat(config.containers().get("c1").oomScoreAdj()).isEqualTo(oom(1024));
        assertThat(config.allocatedRequests()).containsEntry("cpu", 2000L).containsEntry("memory", 2 * GI);
    }

    @Test
    void podLevelRequestsNotHeldByContainersAreSharedForTheOomScore() {
        Pod pod = pod(resources("2500m", "4", "2500Mi", "4Gi"),
                container("c1", "1", "2", "1Gi", "2Gi", "cpu-mem-claim"),
                container("c2", "1", "2", "1Gi", "2Gi", "cpu-mem-claim"));
        PodResourceConfig config = compute(pod, OVERHEAD);
        assertCgroup(config.pod(), "2500m", "4000m", 4 * GI);
        assertCgroup(config.containers().get("c1"), "1000m", "2200m", 2248 * MI);
        assertThat(config.containers().get("c1").oomScoreAdj()).isEqualTo(oom(1250));
    }

    @Test
    void hugepagesOverheadGoesToEveryReferencingContainer() {
        ClaimAllocatable hugepages = claim("hugepages-claim", Map.of(), Map.of("hugepages-2Mi", 100 * MI),
                Map.of("hugepages-2Mi", 50 * MI));
        Container c1 = container("c1", "1", "2", "1Gi", "2Gi", "hugepages-claim");
        c1.getResources().getRequests().put("hugepages-2Mi", new Quantity("2Mi"));
        c1.getResources().getLimits().put("hugepages-2Mi", new Quantity("2Mi"));
        Pod pod = pod(null, c1, container("c2", "1", "2", "1Gi", "2Gi", "hugepages-claim"));
        PodResourceConfig config = compute(pod, hugepages);
        assertCgroup(config.pod(), "2000m", "4000m", 4 * GI);
        assertThat(config.pod().cgroupV2Files()).containsEntry("hugetlb.2MB.max", "211812352");
        assertThat(config.containers().get("c1").cgroupV2Files()).containsEntry("hugetlb.2MB.max", "159383552");
        assertThat(config.containers().get("c2").cgroupV2Files()).containsEntry("hugetlb.2MB.max", "157286400");
        assertThat(config.containers().get("c2").oomScoreAdj()).isEqualTo(oom(1024));
    }

    @Test
    void bestEffortPodsGetMinimalSharesNoLimitsButTheirHugepages() {
        ClaimAllocatable hugepages = claim("cpu-mem-claim", Map.of("cpu", 1000L, "memory", 1000 * MI),
                Map.of("hugepages-2Mi", 100 * MI), Map.of("hugepages-2Mi", 50 * MI));
        Pod pod = pod(null, container("c1", null, null, null, null, "cpu-mem-claim"),
                container("c2", null, null, null, null, "cpu-mem-claim"));
        PodResourceConfig config = compute(pod, hugepages);
        assertThat(config.qosClass()).isEqualTo("BestEffort");
        assertThat(config.pod().cgroupV2Files()).containsEntry("cpu.weight", "1").containsEntry("cpu.max", "max 100000")
                .containsEntry("memory.max", "max").containsEntry("hugetlb.2MB.max", "209715200");
        assertThat(config.containers().get("c1").cgroupV2Files()).containsEntry("cpu.weight", "1")
                .containsEntry("cpu.max", "max 100000").containsEntry("memory.max", "max")
                .containsEntry("hugetlb.2MB.max", "157286400");
        assertThat(config.containers().get("c1").oomScoreAdj()).isEqualTo(1000);
    }

    @Test
    void burstableContainersWithoutLimitsStayUnlimited() {
        Pod pod = pod(null, container("c1", "1000m", null, "1Gi", null, "cpu-mem-claim"),
                container("c2", "1000m", null, "1Gi", null, "cpu-mem-claim"));
        PodResourceConfig config = compute(pod, DIRECT);
        assertThat(config.pod().cgroupV2Files()).containsEntry("cpu.weight", weight("3000m"))
                .containsEntry("cpu.max", "max 100000").containsEntry("memory.max", "max");
        assertThat(config.containers().get("c1").cgroupV2Files()).containsEntry("cpu.weight", weight("1000m"))
                .containsEntry("cpu.max", "max 100000").containsEntry("memory.max", "max");
        assertThat(config.containers().get("c1").oomScoreAdj()).isEqualTo(oom(1524));
    }

    @Test
    void guaranteedPodsKeepTheirClassWhenTheirLimitsGrow() {
        Pod pod = pod(null, container("c1", "1", "1", "1Gi", "1Gi", "cpu-mem-claim"),
                container("c2", "1", "1", "1Gi", "1Gi", "cpu-mem-claim"));
        PodResourceConfig config = compute(pod, DIRECT);
        assertThat(config.qosClass()).isEqualTo("Guaranteed");
        assertCgroup(config.pod(), "3000m", "3000m", 3048 * MI);
        assertCgroup(config.containers().get("c1"), "1000m", "2000m", 2024 * MI);
        assertThat(config.containers().get("c1").oomScoreAdj()).isEqualTo(-997);
    }

    @Test
    void eachContainerGetsItsOwnClaim() {
        ClaimAllocatable first = claim("cpu-mem-claim", Map.of("cpu", 100L, "memory", 1000 * MI), Map.of(), Map.of());
        ClaimAllocatable second = claim("cpu-mem-claim-2", Map.of("cpu", 100L, "memory", 2000 * MI), Map.of(),
                Map.of());
        Pod pod = pod(null, container("c1", "100m", "200m", "1Gi", "2Gi", "cpu-mem-claim"),
                container("c2", "100m", "200m", "1Gi", "2Gi", "cpu-mem-claim-2"));
        PodResourceConfig config = compute(pod, first, second);
        assertCgroup(config.pod(), "400m", "600m", 7096 * MI);
        assertCgroup(config.containers().get("c1"), "100m", "300m", 3048 * MI);
        assertCgroup(config.containers().get("c2"), "100m", "300m", 4048 * MI);
        assertThat(config.containers().get("c1").oomScoreAdj()).isEqualTo(oom(2024));
        assertThat(config.containers().get("c2").oomScoreAdj()).isEqualTo(oom(3024));
        assertThat(config.allocatedRequests()).containsEntry("cpu", 400L).containsEntry("memory", 2 * GI + 3000 * MI);
    }

    @Test
    void theKubeletReadsTheSchedulersStatusEntriesInItsUnits() {
        Pod pod = pod(null, container("c1", "1", "2", "1Gi", "2Gi", "gpu"));
        pod.setStatus(new PodStatusBuilder().withNodeAllocatableResourceClaimStatuses(
                new NodeAllocatableResourceClaimStatus(List.of("c1"),
                        List.of(new NodeAllocatableMappedResources("cpu", new Quantity("2")),
                                new NodeAllocatableMappedResources("memory", new Quantity("1000Mi"))),
                        List.of(new NodeAllocatableOverheadResources("memory", new Quantity("50Mi"),
                                new Quantity("100Mi"))), "pod-gpu-claim")).build());

        assertThat(ClaimAllocatable.of(pod)).containsExactly(new ClaimAllocatable("pod-gpu-claim", Set.of("c1"),
                Map.of("cpu", 2000L, "memory", 1000 * MI), Map.of("memory", 100 * MI), Map.of("memory", 50 * MI)));
        assertThat(ClaimAllocatable.of(pod(null, container("c1", "1", "2", "1Gi", "2Gi")))).isEmpty();
    }

    @Test
    void theQosClassIsTheApiServersElseTheSharedRuleOfTheKubeletsVersion() {
        Pod pod = pod(resources(null, null, null, null), container("c1", "1", "1", "1Gi", "1Gi"));
        assertThat(PodResourceConfig.compute(pod, List.of(), CAPACITY, Set.of(), V1_36).qosClass())
                .isEqualTo("BestEffort");
        assertThat(PodResourceConfig.compute(pod, List.of(), CAPACITY, Set.of(), V1_37).qosClass())
                .isEqualTo("Guaranteed");

        pod.setStatus(new PodStatusBuilder().withQosClass("Burstable").build());
        assertThat(PodResourceConfig.compute(pod, List.of(), CAPACITY, Set.of(), V1_37).qosClass())
                .isEqualTo("Burstable");
    }

    @Test
    void burstableScoresStayBetweenGuaranteedAndBestEffort() {
        assertThat(PodResourceConfig.oomScoreAdj("Burstable", CAPACITY, CAPACITY)).isEqualTo(3);
        assertThat(PodResourceConfig.oomScoreAdj("Burstable", 0, CAPACITY)).isEqualTo(999);
    }

    @Test
    void cpuWeightFollowsRuncsConversion() {
        assertThat(new LinuxResources(2, -1, 0, Map.of(), 0).cgroupV2Files()).containsEntry("cpu.weight", "1");
        assertThat(new LinuxResources(1024, -1, 0, Map.of(), 0).cgroupV2Files()).containsEntry("cpu.weight", "100");
        assertThat(new LinuxResources(262144, -1, 0, Map.of(), 0).cgroupV2Files())
                .containsEntry("cpu.weight", "10000");
        assertThat(PodResourceConfig.pageSizeName("hugepages-1Gi")).isEqualTo("1GB");
    }

    /** The claims as the scheduler records them: each with the containers that reference it by its name. */
    private static PodResourceConfig compute(Pod pod, ClaimAllocatable... claims) {
        List<ClaimAllocatable> recorded = new ArrayList<>();
        for (ClaimAllocatable claim : claims) {
            Set<String> containers = new LinkedHashSet<>();
            for (Container container : pod.getSpec().getContainers()) {
                if (container.getResources().getClaims().stream()
                        .anyMatch(reference -> reference.getName().equals(claim.resourceClaimName()))) {
                    containers.add(container.getName());
                }
            }
            recorded.add(new ClaimAllocatable(claim.resourceClaimName(), containers, claim.mapped(), claim.perPod(),
                    claim.perContainer()));
        }
        return PodResourceConfig.compute(pod, recorded, CAPACITY, Set.of("hugepages-2Mi"), V1_37);
    }

    /** upstream's computeExpectedOomScoreAdj for a request in Mi. */
    private static int oom(long requestMi) {
        return (int) (1000 - 1000 * requestMi * MI / CAPACITY);
    }

    private static String weight(String cpu) {
        long shares = PodResourceConfig.shares(PodResourceConfig.units("cpu", io.kdra.kube.Quantity.parse(cpu)));
        return new LinuxResources(shares, -1, 0, Map.of(), 0).cgroupV2Files().get("cpu.weight");
    }

    /** The cgroup shows these CPU request (as weight), CPU limit (as quota) and memory limit. */
    private static void assertCgroup(LinuxResources resources, String cpuRequest, String cpuLimit, long memory) {
        long limit = PodResourceConfig.units("cpu", io.kdra.kube.Quantity.parse(cpuLimit));
        assertThat(resources.cgroupV2Files())
                .containsEntry("cpu.weight", weight(cpuRequest))
                .containsEntry("cpu.max", limit * 100 + " 100000")
                .containsEntry("memory.max", Long.toString(memory));
    }

    private static ClaimAllocatable claim(String name, Map<String, Long> mapped, Map<String, Long> perPod,
            Map<String, Long> perContainer) {
        return new ClaimAllocatable(name, Set.of(), mapped, perPod, perContainer);
    }

    private static Pod pod(ResourceRequirements podResources, Container... containers) {
        return new PodBuilder().withNewMetadata().withName("tester-1").withUid("uid-1").endMetadata()
                .withNewSpec().withContainers(containers).withResources(podResources).endSpec().build();
    }

    private static ResourceRequirements resources(String cpuRequest, String cpuLimit, String memoryRequest,
            String memoryLimit) {
        Map<String, Quantity> requests = new HashMap<>();
        Map<String, Quantity> limits = new HashMap<>();
        put(requests, "cpu", cpuRequest);
        put(requests, "memory", memoryRequest);
        put(limits, "cpu", cpuLimit);
        put(limits, "memory", memoryLimit);
        ResourceRequirements resources = new ResourceRequirements();
        resources.setRequests(requests);
        resources.setLimits(limits);
        return resources;
    }

    private static void put(Map<String, Quantity> list, String name, String value) {
        if (value != null) {
            list.put(name, new Quantity(value));
        }
    }

    private static Container container(String name, String cpuRequest, String cpuLimit, String memoryRequest,
            String memoryLimit, String... claims) {
        ResourceRequirements resources = resources(cpuRequest, cpuLimit, memoryRequest, memoryLimit);
        for (String claim : claims) {
            resources.getClaims().add(new ResourceClaimBuilder().withName(claim)
                    .build());
        }
        return new ContainerBuilder().withName(name).withResources(resources).build();
    }
}
