package io.kdra.e2e;

import io.kdra.framework.DraSpec;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;

/** dra.go group G1: upstream's {@code multiNodeTests(false)}; the driver does not register with the kubelets. */
@DraSpec
@DisplayName("[sig-node] [DRA] control plane")
@Tag("sig-node")
@Tag("DRA")
class ControlPlaneMultiNodeSpecs extends AbstractMultiNodeSpecs {

    @Override
    boolean withKubelet() {
        return false;
    }
}
