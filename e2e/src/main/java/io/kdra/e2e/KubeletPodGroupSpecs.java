package io.kdra.e2e;

import io.kdra.framework.DraSpec;
import io.kdra.framework.Framework;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** dra.go group AA: claims of a Workload's PodGroup, allocated for the pods of the group. */
@DraSpec
@DisplayName("[sig-node] [DRA] kubelet [Feature:DynamicResourceAllocation] [FeatureGate:GenericWorkload] "
        + "[FeatureGate:DRAWorkloadResourceClaims] [KubeletMinVersion:1.36]")
@Tag("sig-node")
@Tag("DRA")
@Tag("Feature:DynamicResourceAllocation")
@Tag("FeatureGate:GenericWorkload")
@Tag("FeatureGate:DRAWorkloadResourceClaims")
@Tag("KubeletMinVersion:1.36")
class KubeletPodGroupSpecs {

    static final String MISSING = "PodGroup claims are not built yet: the embedded API server serves no "
            + "scheduling.k8s.io Workload and PodGroup, the resourceclaim controller generates no claims for a "
            + "PodGroup's templates, the scheduler does not reserve claims for a PodGroup, and the kubelet accepts only "
            + "claims reserved for the pod itself";

    final Framework f = Framework.create("dra");

    @Test
    @DisplayName("allocates devices for PodGroups [Beta] [Feature:OffByDefault] [FeatureGate:DynamicResourceAllocation] "
            + "[FeatureGate:GenericWorkload]")
    @Tag("Beta")
    @Tag("Feature:OffByDefault")
    @Tag("FeatureGate:DynamicResourceAllocation")
    @Disabled(MISSING)
    void allocatesDevicesForPodGroups() {
    }

    @Test
    @DisplayName("generates claims from templates for PodGroups [Beta] [Feature:OffByDefault] "
            + "[FeatureGate:DynamicResourceAllocation] [FeatureGate:GenericWorkload]")
    @Tag("Beta")
    @Tag("Feature:OffByDefault")
    @Tag("FeatureGate:DynamicResourceAllocation")
    @Disabled(MISSING)
    void generatesClaimsFromTemplatesForPodGroups() {
    }
}
