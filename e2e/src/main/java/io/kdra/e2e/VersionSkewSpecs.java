package io.kdra.e2e;

import io.kdra.framework.DraSpec;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * versionskew.go: a claim and a pod work on a cluster of the previous minor release, again after the control plane and
 * kubelets are upgraded to the current version (slices wiped and republished), and again after the downgrade.
 */
@DraSpec
@DisplayName("[sig-node] [DRA] [Feature:DynamicResourceAllocation] [FeatureGate:DynamicResourceAllocation]")
@Tag("sig-node")
@Tag("DRA")
@Tag("Feature:DynamicResourceAllocation")
@Tag("FeatureGate:DynamicResourceAllocation")
class VersionSkewSpecs {

    @Test
    @DisplayName("upgrade/downgrade works")
    @Disabled("upgrade and downgrade are not built: the embedded cluster cannot switch its emulated Kubernetes version"
            + " in place (control plane and kubelets restarted as the newer or older version over the same stored"
            + " state); upstream builds kind clusters of two releases")
    void upgradeDowngradeWorks() {
    }
}
