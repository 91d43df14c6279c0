package io.kdra.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.kdra.framework.DraSpec;
import io.kdra.framework.Driver;
import io.kdra.framework.Framework;
import io.kdra.framework.Nodes;
import io.kdra.framework.Resources;
import io.kdra.framework.Waits;
import io.kdra.plugin.resourceslice.DriverResources;
import io.kdra.plugin.resourceslice.Pool;
import io.kdra.plugin.resourceslice.Slice;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * dra.go group Z: a node's plugin publishes a pool for all nodes and reconciles just that pool by name, so that a
 * deleted slice comes back.
 */
@DraSpec
@DisplayName("[sig-node] [DRA] kubelet [Feature:DynamicResourceAllocation]")
@Tag("sig-node")
@Tag("DRA")
@Tag("Feature:DynamicResourceAllocation")
class KubeletReconcilePoolSpecs {

    static final String POOL = "all-nodes-pool";

    final Framework f = Framework.create("dra");
    final Nodes nodes = Nodes.create(f, 1, 1);
    final Driver driver = Driver.create(f, nodes, allNodesPool()).usePrivilegedClient(true)
            .reconcilePoolWithName(POOL);

    /** From the plugin of each node: pool {@value #POOL} with allNodes and one device {@code device-00}. */
    private static Resources.Generator allNodesPool() {
        return onNodes -> {
            Map<String, DriverResources> resources = new LinkedHashMap<>();
            for (String node : onNodes.nodeNames()) {
                resources.put(node, DriverResources.of(POOL, new Pool(List.of(Slice.ofDevices(
                        List.of(new DeviceBuilder().withName("device-00").build()))), null, true, false, 0)));
            }
            return resources;
        };
    }

    @Test
    @DisplayName("reconciles ResourceSlices with ReconcilePoolWithName")
    void reconcilesResourceSlicesWithReconcilePoolWithName() throws Exception {
        f.by("the pool is published once, for all nodes");
        Waits.until("one slice of pool " + POOL, f.timeouts().pluginRegistration())
                .until(() -> poolSlices().size() == 1);
        ResourceSlice slice = poolSlices().get(0);
        assertThat(slice.getSpec().getNodeName()).as("nodeName").isNull();
        assertThat(slice.getSpec().getAllNodes()).as("allNodes").isTrue();
        assertThat(slice.getSpec().getPool().getResourceSliceCount()).as("resourceSliceCount").isEqualTo(1L);

        f.by("deleting the slice, the plugin publishes it again");
        f.client().resource(slice).delete();
        Waits.until("slice of pool " + POOL + " re-created", Duration.ofSeconds(50))
                .until(() -> poolSlices().stream()
                        .anyMatch(other -> !other.getMetadata().getUid().equals(slice.getMetadata().getUid())));
    }

    private List<ResourceSlice> poolSlices() throws Exception {
        return driver.getSlices().call().stream()
                .filter(slice -> POOL.equals(slice.getSpec().getPool().getName())).toList();
    }
}
