package io.kdra.e2e;

import io.fabric8.kubernetes.api.model.resource.v1.DeviceTaintBuilder;
import io.kdra.framework.Builder;
import io.kdra.framework.DraSpec;
import io.kdra.framework.Driver;
import io.kdra.framework.Framework;
import io.kdra.framework.Nodes;
import io.kdra.framework.Pods;
import io.kdra.framework.Resources;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** dra.go group N: every device of a network pool is tainted NoExecute. */
@DraSpec
@DisplayName("[sig-node] [DRA] kubelet [Feature:DynamicResourceAllocation] [FeatureGate:DRADeviceTaints]")
@Tag("sig-node")
@Tag("DRA")
@Tag("Feature:DynamicResourceAllocation")
@Tag("FeatureGate:DRADeviceTaints")
@Tag("FeatureGate:DynamicResourceAllocation")
class KubeletDeviceTaintsNoExecuteSpecs {

    final Framework f = Framework.create("dra");
    final Nodes nodes = Nodes.create(f, 1, 1);
    final Driver driver = Driver.create(f, nodes, Resources.networkResources(10, false),
            Resources.taintAllDevices(new DeviceTaintBuilder().withKey("example.com/taint").withValue("tainted")
                    .withEffect("NoExecute").build()));
    final Builder b = Builder.create(f, driver);

    @Test
    @DisplayName("NoExecute keeps pod pending [FeatureGate:DynamicResourceAllocation]")
    void noExecuteKeepsPodPending() {
        Builder.PodWithTemplate inline = b.podInline();
        b.create(inline.pod(), inline.template());
        Pods.waitForUnschedulable(f, inline.pod());
    }

    @Test
    @DisplayName("NoExecute can be tolerated [FeatureGate:DynamicResourceAllocation]")
    void noExecuteCanBeTolerated() throws Exception {
        Builder.PodWithTemplate inline = b.podInline();
        KubeletDeviceTaintsSpecs.tolerateAll(inline, "NoExecute");
        b.create(inline.pod(), inline.template());
        b.testPod(inline.pod());
    }
}
