package io.kdra.e2e;

import io.kdra.framework.DraSpec;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * dra_node_allocatable_resources.go: devices whose {@code nodeAllocatableResources} (a {@code deviceMultiplier}
 * mapping, per-pod or per-container overhead) raise the pod's and the containers' CPU, memory and hugepages cgroup
 * values, and the containers' {@code oom_score_adj} follows (Guaranteed -997, BestEffort 1000, Burstable from the
 * memory request). Upstream reads the values from the node's cgroups; not built here.
 */
@DraSpec
@DisplayName("[sig-node] [DRA] Node Allocatable Resources [Feature:DynamicResourceAllocation]"
        + " [FeatureGate:DRANodeAllocatableResources]")
@Tag("sig-node")
@Tag("DRA")
@Tag("Feature:DynamicResourceAllocation")
@Tag("FeatureGate:DRANodeAllocatableResources")
class NodeAllocatableResourcesSpecs {

    /** Why these specs are skipped. */
    static final String NOT_BUILT = "node allocatable resources are not built: the simulated kubelet computes no pod"
            + " or container cgroup values (CPU shares and quota, memory and hugepages limits) from the devices'"
            + " nodeAllocatableResources mappings and no oom_score_adj, and the process runtime creates no cgroups, so"
            + " there is nothing for the spec to read from /sys/fs/cgroup and /proc/self/oom_score_adj";

    @Test
    @DisplayName("verifies cgroup inflation and container OOM adjustment with direct mappings")
    @Disabled(NOT_BUILT)
    void directMappings() {
    }

    @Test
    @DisplayName("verifies cgroup inflation and container OOM adjustment with overhead mappings")
    @Disabled(NOT_BUILT)
    void overheadMappings() {
    }

    @Test
    @DisplayName("verifies cgroup inflation and container OOM adjustment with combined direct and overhead mappings")
    @Disabled(NOT_BUILT)
    void combinedDirectAndOverheadMappings() {
    }

    @Test
    @DisplayName("verifies cgroup inflation and container OOM adjustment with single device with both mapping and"
            + " overhead")
    @Disabled(NOT_BUILT)
    void singleDeviceWithBothMappingAndOverhead() {
    }

    @Test
    @DisplayName("verifies cgroup inflation and container OOM adjustment with unreferenced overhead claim")
    @Disabled(NOT_BUILT)
    void unreferencedOverheadClaim() {
    }

    @Test
    @DisplayName("verifies cgroup inflation and container OOM adjustment with pod-level resources specified,"
            + " container-level limits omitted")
    @Disabled(NOT_BUILT)
    void podLevelResourcesSpecifiedContainerLevelLimitsOmitted() {
    }

    @Test
    @DisplayName("verifies cgroup inflation and container OOM adjustment with pod-level resources specified,"
            + " container-level limits specified")
    @Disabled(NOT_BUILT)
    void podLevelResourcesSpecifiedContainerLevelLimitsSpecified() {
    }

    @Test
    @DisplayName("verifies cgroup inflation and container OOM adjustment with hugepages overhead mapping")
    @Disabled(NOT_BUILT)
    void hugepagesOverheadMapping() {
    }

    @Test
    @DisplayName("verifies cgroup inflation and container OOM adjustment with container-level requests and limits"
            + " omitted (BestEffort)")
    @Disabled(NOT_BUILT)
    void containerLevelRequestsAndLimitsOmittedBestEffort() {
    }

    @Test
    @DisplayName("verifies cgroup inflation and container OOM adjustment with container-level CPU/Memory limits"
            + " omitted (Burstable)")
    @Disabled(NOT_BUILT)
    void containerLevelCPUMemoryLimitsOmittedBurstable() {
    }

    @Test
    @DisplayName("verifies cgroup inflation and container OOM adjustment with hugepages overhead mapping with"
            + " container limits omitted")
    @Disabled(NOT_BUILT)
    void hugepagesOverheadMappingWithContainerLimitsOmitted() {
    }

    @Test
    @DisplayName("verifies cgroup inflation and container OOM adjustment with Guaranteed QoS pod with direct mapping")
    @Disabled(NOT_BUILT)
    void guaranteedQoSPodWithDirectMapping() {
    }

    @Test
    @DisplayName("verifies cgroup inflation and container OOM adjustment with direct mapping multiple claims")
    @Disabled(NOT_BUILT)
    void directMappingMultipleClaims() {
    }
}
