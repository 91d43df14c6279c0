package io.kdra.e2e;

import io.kdra.framework.DraSpec;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * dra_node_allocatable_resources.go, "resize": in-place resizes of pods whose devices declare node allocatable
 * resources keep the cgroup values and the pod's resize status right. Not built here.
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

    /** Why these specs are skipped. */
    static final String NOT_BUILT = "in-place resize is not built: the API server serves no pods/resize subresource";

    @Test
    @DisplayName("verifies cgroup settings and pod status after resize with direct mappings with resize")
    @Disabled(NOT_BUILT)
    void directMappingsWithResize() {
    }

    @Test
    @DisplayName("verifies cgroup settings and pod status after resize with overhead mappings with resize")
    @Disabled(NOT_BUILT)
    void overheadMappingsWithResize() {
    }

    @Test
    @DisplayName("verifies cgroup settings and pod status after resize with pod-level resources resize with container"
            + " level request/limit omitted")
    @Disabled(NOT_BUILT)
    void podLevelResourcesResizeWithContainerLevelRequestLimitOmitted() {
    }

    @Test
    @DisplayName("verifies cgroup settings and pod status after resize with Pod level resize, container level"
            + " request/limit present")
    @Disabled(NOT_BUILT)
    void podLevelResizeContainerLevelRequestLimitPresent() {
    }

    @Test
    @DisplayName("verifies cgroup settings and pod status after resize with pod level resources present, container"
            + " level resize")
    @Disabled(NOT_BUILT)
    void podLevelResourcesPresentContainerLevelResize() {
    }
}
