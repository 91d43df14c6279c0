package io.kdra.e2e;

import io.kdra.framework.DraSpec;
import io.kdra.framework.Framework;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** dra.go group AB: devices whose ResourceSlice says which node operations the kubelet skips (KEP-5945). */
@DraSpec
@DisplayName("[sig-node] [DRA] kubelet [Feature:DynamicResourceAllocation] [FeatureGate:DRAOptionalNodeOperations]")
@Tag("sig-node")
@Tag("DRA")
@Tag("Feature:DynamicResourceAllocation")
@Tag("FeatureGate:DRAOptionalNodeOperations")
@Tag("Alpha")
@Tag("Feature:OffByDefault")
@Tag("FeatureGate:DynamicResourceAllocation")
class KubeletOptionalNodeOperationsSpecs {

    static final String MISSING = "the embedded kubelet does not honour skipNodeOperations of ResourceSlices "
            + "(gate DRAOptionalNodeOperations): it prepares every allocated claim through the driver";

    final Framework f = Framework.create("dra");

    @Test
    @DisplayName("with control-plane only driver (no node plugin) bypasses node preparation when SkipNodeOperations "
            + "is All [Alpha] [Feature:OffByDefault] [FeatureGate:DynamicResourceAllocation]")
    @Disabled(MISSING)
    void controlPlaneOnlyAll() {
    }

    @Test
    @DisplayName("with control-plane only driver (no node plugin) fails node preparation when SkipNodeOperations is "
            + "not set [Alpha] [Feature:OffByDefault] [FeatureGate:DynamicResourceAllocation]")
    @Disabled(MISSING)
    void controlPlaneOnlyUnset() {
    }

    @Test
    @DisplayName("with control-plane only driver (no node plugin) fails node preparation when SkipNodeOperations is "
            + "UnprepareOnly [Alpha] [Feature:OffByDefault] [FeatureGate:DynamicResourceAllocation]")
    @Disabled(MISSING)
    void controlPlaneOnlyUnprepareOnly() {
    }

    @Test
    @DisplayName("with standard driver (node plugin running) bypasses node preparation and unprepare when "
            + "SkipNodeOperations is All [Alpha] [Feature:OffByDefault] [FeatureGate:DynamicResourceAllocation]")
    @Disabled(MISSING)
    void standardDriverAll() {
    }

    @Test
    @DisplayName("with standard driver (node plugin running) bypasses node unprepare when SkipNodeOperations is "
            + "UnprepareOnly [Alpha] [Feature:OffByDefault] [FeatureGate:DynamicResourceAllocation]")
    @Disabled(MISSING)
    void standardDriverUnprepareOnly() {
    }
}
