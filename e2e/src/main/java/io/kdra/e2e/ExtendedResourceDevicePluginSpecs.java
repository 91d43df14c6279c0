package io.kdra.e2e;

import io.kdra.framework.Builder;
import io.kdra.framework.DraSpec;
import io.kdra.framework.Driver;
import io.kdra.framework.Framework;
import io.kdra.framework.Nodes;
import io.kdra.framework.Resources;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * dra.go group P: extended resources on two nodes, the DRA driver on one and the sample device plugin on the reserved
 * other.
 */
@DraSpec
@DisplayName("[sig-node] [DRA] [FeatureGate:DRAExtendedResource] [Feature:DynamicResourceAllocation]")
@Tag("sig-node")
@Tag("DRA")
@Tag("FeatureGate:DRAExtendedResource")
@Tag("Feature:DynamicResourceAllocation")
@Tag("FeatureGate:DynamicResourceAllocation")
@Tag("KubeletMinVersion:1.35")
@Tag("Serial")
class ExtendedResourceDevicePluginSpecs {

    final Framework f = Framework.create("dra");
    final Nodes nodes = Nodes.create(f, 2, 2).numReservedNodes(1);
    final Driver driver = Driver.create(f, nodes, Resources.networkResources(2, false));
    final Builder b = Builder.create(f, driver);

    @Test
    @DisplayName("must run pods with extended resource on dra nodes and device plugin nodes [KubeletMinVersion:1.35]"
            + " [FeatureGate:DynamicResourceAllocation] [Serial]")
    @Disabled(ExtendedResourceSpecs.DEVICE_PLUGIN_ONLY)
    void mustRunPodsWithExtendedResourceOnDraNodesAndDevicePluginNodes() {
        // Upstream: the sample device plugin runs on the reserved node; of two pods asking for 2 of the resource one
        // lands there without status.extendedResourceClaimStatus, the other on the DRA node with
        // container_0_request_0=true.
    }
}
