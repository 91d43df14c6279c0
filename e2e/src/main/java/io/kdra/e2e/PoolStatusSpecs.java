package io.kdra.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.kdra.framework.Builder;
import io.kdra.framework.DraSpec;
import io.kdra.framework.Driver;
import io.kdra.framework.Framework;
import io.kdra.framework.Nodes;
import io.kdra.framework.Pods;
import io.kdra.framework.Resources;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * dra.go group V: ResourcePoolStatusRequest reports of a driver on one node with a network pool of ten devices and no
 * kubelet plugin sockets.
 */
@DraSpec
@DisplayName("[sig-node] [DRA] control plane [FeatureGate:DRAResourcePoolStatus]")
@Tag("sig-node")
@Tag("DRA")
@Tag("FeatureGate:DRAResourcePoolStatus")
@Tag("Alpha")
@Tag("Feature:OffByDefault")
@Tag("FeatureGate:DynamicResourceAllocation")
class PoolStatusSpecs {

    final Framework f = Framework.create("dra");
    final Nodes nodes = Nodes.create(f, 1, 1);
    final Driver driver = Driver.create(f, nodes, Resources.networkResources(10, false)).withKubelet(false);
    final Builder b = Builder.create(f, driver);

    @Test
    @DisplayName("should report pool status with correct device counts [Alpha] [Feature:OffByDefault] "
            + "[FeatureGate:DynamicResourceAllocation]")
    void reportsPoolStatusWithCorrectDeviceCounts() {
        PoolStatusRequests.eventually(f, PoolStatusRequests.request("e2e-", driver.name(), null, null), status -> {
            assertThat(status).isNotNull().containsOnlyKeys("poolCount", "pools", "conditions");
            assertThat(status).containsEntry("poolCount", 1);
            assertThat(PoolStatusRequests.complete(status)).as("condition Complete=True").isTrue();
            assertThat(PoolStatusRequests.pools(status)).singleElement().isEqualTo(Map.of(
                    "driver", driver.name(), "poolName", Resources.NETWORK_POOL, "generation", 1,
                    "resourceSliceCount", 1, "totalDevices", 10, "allocatedDevices", 0, "availableDevices", 10,
                    "unavailableDevices", 0));
        });
    }

    @Test
    @DisplayName("should reflect allocated devices after pod is scheduled [Alpha] [Feature:OffByDefault] "
            + "[FeatureGate:DynamicResourceAllocation]")
    void reflectsAllocatedDevicesAfterPodIsScheduled() {
        Builder.PodWithTemplate inline = b.podInline();
        Pod pod = inline.pod();
        b.create(inline.template(), pod);
        Pods.waitForScheduled(f, pod);

        PoolStatusRequests.eventually(f, PoolStatusRequests.request("e2e-allocated-", driver.name(), null, null),
                status -> {
                    assertThat(status).isNotNull();
                    assertThat(PoolStatusRequests.complete(status)).as("condition Complete=True").isTrue();
                    assertThat(PoolStatusRequests.pools(status)).singleElement().satisfies(pool -> {
                        assertThat((Integer) pool.get("allocatedDevices")).isGreaterThan(0);
                        assertThat(pool).containsKey("availableDevices");
                    });
                });
    }
}
