package io.kdra.e2e;

import io.kdra.framework.DraSpec;
import io.kdra.framework.Framework;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** dra.go group AC: group M's device taint specs for PodGroup claims. */
@DraSpec
@DisplayName("[sig-node] [DRA] kubelet [Feature:DynamicResourceAllocation] [FeatureGate:DRADeviceTaints] "
        + "[FeatureGate:DRAWorkloadResourceClaims] [FeatureGate:GenericWorkload] [KubeletMinVersion:1.36]")
@Tag("sig-node")
@Tag("DRA")
@Tag("Feature:DynamicResourceAllocation")
@Tag("FeatureGate:DRADeviceTaints")
@Tag("FeatureGate:DRAWorkloadResourceClaims")
@Tag("FeatureGate:GenericWorkload")
@Tag("KubeletMinVersion:1.36")
@Tag("Beta")
@Tag("Feature:OffByDefault")
@Tag("FeatureGate:DynamicResourceAllocation")
class KubeletDeviceTaintsPodGroupSpecs {

    final Framework f = Framework.create("dra");

    @Test
    @DisplayName("NoSchedule keeps pod with PodGroup claim pending [Beta] [Feature:OffByDefault] "
            + "[FeatureGate:DynamicResourceAllocation] [FeatureGate:GenericWorkload]")
    @Disabled(KubeletPodGroupSpecs.MISSING)
    void noScheduleKeepsPodWithPodGroupClaimPending() {
    }

    @Test
    @DisplayName("NoSchedule can be tolerated for PodGroup claims [Beta] [Feature:OffByDefault] "
            + "[FeatureGate:DynamicResourceAllocation] [FeatureGate:GenericWorkload]")
    @Disabled(KubeletPodGroupSpecs.MISSING)
    void noScheduleCanBeToleratedForPodGroupClaims() {
    }

    @Test
    @DisplayName("DeviceTaintRule evicts pod with PodGroup claim [FeatureGate:DRADeviceTaintRules] [Beta] "
            + "[Feature:OffByDefault] [FeatureGate:DRADeviceTaints] [FeatureGate:DynamicResourceAllocation] "
            + "[FeatureGate:GenericWorkload]")
    @Tag("FeatureGate:DRADeviceTaintRules")
    @Disabled(KubeletPodGroupSpecs.MISSING)
    void deviceTaintRuleEvictsPodWithPodGroupClaim() {
    }
}
