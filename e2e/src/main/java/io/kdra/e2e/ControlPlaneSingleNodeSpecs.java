package io.kdra.e2e;

import io.kdra.framework.DraSpec;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;

/**
 * dra.go group E1: upstream's {@code singleNodeTests(false)}. The driver publishes its ResourceSlices but does not
 * register with the kubelet; the specs check scheduling and allocation only.
 */
@DraSpec
@DisplayName("[sig-node] [DRA] control plane")
@Tag("sig-node")
@Tag("DRA")
class ControlPlaneSingleNodeSpecs extends AbstractSingleNodeSpecs {

    @Override
    boolean withKubelet() {
        return false;
    }
}
