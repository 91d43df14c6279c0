package io.kdra.e2e;

import io.kdra.framework.DraSpec;
import io.kdra.framework.Framework;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * dra.go group X: the plugin library writes device metadata files per claim and request, which the kubelet mounts into
 * the containers that use them.
 */
@DraSpec
@DisplayName("[sig-node] [DRA] metadata [Feature:DynamicResourceAllocation]")
@Tag("sig-node")
@Tag("DRA")
@Tag("Feature:DynamicResourceAllocation")
class DeviceMetadataSpecs {

    static final String MISSING = "device metadata is not built yet: the plugin library writes no metadata files "
            + "(EnableDeviceMetadata, DeviceMetadataVersions v1alpha1/v1beta1) nor the per-request CDI specs that mount "
            + "them, and the embedded runtime's containers are host processes, so exec'd commands do not see CDI mounts "
            + "at their container paths";

    final Framework f = Framework.create("dra");

    @Test
    @DisplayName("v1beta1 must mount device metadata for resource claims")
    @Disabled(MISSING)
    void v1beta1ResourceClaims() {
    }

    @Test
    @DisplayName("v1beta1 must map device metadata to the right containers")
    @Disabled(MISSING)
    void v1beta1RightContainers() {
    }

    @Test
    @DisplayName("v1beta1 must mount device metadata for resource claim templates")
    @Disabled(MISSING)
    void v1beta1ResourceClaimTemplates() {
    }

    @Test
    @DisplayName("v1alpha1+v1beta1 must mount device metadata for resource claims")
    @Disabled(MISSING)
    void v1alpha1AndV1beta1ResourceClaims() {
    }

    @Test
    @DisplayName("v1alpha1+v1beta1 must map device metadata to the right containers")
    @Disabled(MISSING)
    void v1alpha1AndV1beta1RightContainers() {
    }

    @Test
    @DisplayName("v1alpha1+v1beta1 must mount device metadata for resource claim templates")
    @Disabled(MISSING)
    void v1alpha1AndV1beta1ResourceClaimTemplates() {
    }
}
