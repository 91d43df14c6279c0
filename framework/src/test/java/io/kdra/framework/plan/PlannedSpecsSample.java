package io.kdra.framework.plan;

import io.kdra.framework.DraSpec;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Specs that are part of the plan but never run (they would need a cluster), for {@code SuitePlanTest}. */
@DraSpec
@Tag("DRA")
class PlannedSpecsSample {

    @Test
    @Tag("FeatureGate:DRAPrioritizedList")
    @Disabled("only its labels matter")
    void prioritizedList() {
    }

    @Test
    @Tag("KubeletMinVersion:1.35")
    @Tag("FeatureGate:DRAConsumableCapacity")
    @Disabled("only its labels matter")
    void consumableCapacity() {
    }
}
