package io.kdra.e2e;

import io.kdra.framework.DraSpec;
import io.kdra.framework.Framework;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** compatibility_groups.go: devices sharing counters may only be allocated together within a compatibility group. */
@DraSpec
@DisplayName("[sig-node] [DRA] [FeatureGate:DRADeviceCompatibilityGroups] device compatibility groups")
@Tag("sig-node")
@Tag("DRA")
@Tag("FeatureGate:DRADeviceCompatibilityGroups")
class CompatibilityGroupsSpecs {

    static final String MISSING = "the allocator does not know device compatibility groups "
            + "(gate DRADeviceCompatibilityGroups)";

    final Framework f = Framework.create("dra");

    @Test
    @DisplayName("incompatible devices leave a pod requesting an incompatible device unschedulable")
    @Disabled(MISSING)
    void incompatibleDevices() {
    }

    @Test
    @DisplayName("compatible devices schedule two pods that share a compatibility group")
    @Disabled(MISSING)
    void compatibleDevices() {
    }
}
