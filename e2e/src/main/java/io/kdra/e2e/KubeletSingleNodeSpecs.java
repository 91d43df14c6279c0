package io.kdra.e2e;

import io.kdra.framework.DraSpec;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** dra.go group E2: upstream's {@code singleNodeTests(true)}; pods run and get their devices' environment. */
@DraSpec
@DisplayName("[sig-node] [DRA] kubelet [Feature:DynamicResourceAllocation] on single node")
@Tag("sig-node")
@Tag("DRA")
@Tag("Feature:DynamicResourceAllocation")
class KubeletSingleNodeSpecs extends AbstractSingleNodeSpecs {

    @Override
    boolean withKubelet() {
        return true;
    }

    @Test
    @DisplayName("supports extended resources together with ResourceClaim [Serial]")
    @Tag("Serial")
    @Disabled("node-only: deploys the sample device plugin (a DaemonSet registering example.com/resource through the "
            + "kubelet's device plugin API), which the embedded cluster's kubelets do not serve")
    void supportsExtendedResourcesTogetherWithResourceClaim() {
    }
}
