package io.kdra.e2e;

import io.kdra.framework.DraSpec;
import io.kdra.framework.Framework;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** dra.go group Y: two drivers write metadata files for the same request of one claim. */
@DraSpec
@DisplayName("[sig-node] [DRA] metadata [Feature:DynamicResourceAllocation]")
@Tag("sig-node")
@Tag("DRA")
@Tag("Feature:DynamicResourceAllocation")
class DeviceMetadataMultipleDriversSpecs {

    final Framework f = Framework.create("dra");

    @Test
    @DisplayName("must not race when multiple drivers write metadata for the same request")
    @Disabled(DeviceMetadataSpecs.MISSING)
    void mustNotRace() {
    }
}
