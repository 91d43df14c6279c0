package io.kdra.e2e;

import io.kdra.framework.DraSpec;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;

/** dra.go group G2: upstream's {@code multiNodeTests(true)}; pods run. */
@DraSpec
@DisplayName("[sig-node] [DRA] kubelet [Feature:DynamicResourceAllocation] on multiple nodes")
@Tag("sig-node")
@Tag("DRA")
@Tag("Feature:DynamicResourceAllocation")
class KubeletMultiNodeSpecs extends AbstractMultiNodeSpecs {

    @Override
    boolean withKubelet() {
        return true;
    }
}
