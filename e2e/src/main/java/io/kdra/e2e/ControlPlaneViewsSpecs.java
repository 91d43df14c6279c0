package io.kdra.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.kdra.framework.DraSpec;
import io.kdra.framework.Driver;
import io.kdra.framework.Framework;
import io.kdra.framework.Nodes;
import io.kdra.framework.Resources;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * dra.go group W: the views of ResourcePoolStatusRequest reports on partitionable and shareable pools; each view has
 * its own driver on one node, without kubelet plugin sockets.
 */
@DraSpec
@DisplayName("[sig-node] [DRA] control plane views [FeatureGate:DRAResourcePoolStatus]")
@Tag("sig-node")
@Tag("DRA")
@Tag("FeatureGate:DRAResourcePoolStatus")
@Tag("Alpha")
@Tag("Beta")
@Tag("Feature:OffByDefault")
@Tag("FeatureGate:DynamicResourceAllocation")
class ControlPlaneViewsSpecs {

    @Nested
    @DisplayName("partitionable typed view [FeatureGate:DRAPartitionableDevices] "
            + "[FeatureGate:DRAPartitionableDevicesType]")
    @Tag("FeatureGate:DRAPartitionableDevices")
    @Tag("FeatureGate:DRAPartitionableDevicesType")
    class TypedViewSpecs {

        final Framework f = Framework.create("dra");
        final Nodes nodes = Nodes.create(f, 1, 1);
        final Driver driver = Driver.create(f, nodes, Resources.partitionableResources(true)).withKubelet(false);

        @Test
        @DisplayName("should report partitionSummary for a partitionable pool [Alpha] [Beta] [Feature:OffByDefault] "
                + "[FeatureGate:DRAPartitionableDevices] [FeatureGate:DRAResourcePoolStatus] "
                + "[FeatureGate:DynamicResourceAllocation]")
        void reportsPartitionSummary() {
            String attribute = Resources.PARTITION_PROFILE_ATTRIBUTE;
            PoolStatusRequests.eventually(f, PoolStatusRequests.request("e2e-partition-", driver.name(), null, null),
                    status -> {
                        assertThat(status).isNotNull();
                        assertThat(PoolStatusRequests.complete(status)).as("condition Complete=True").isTrue();
                        assertThat(PoolStatusRequests.pools(status)).singleElement().satisfies(pool -> {
                            assertThat(pool).containsEntry("poolName", Resources.PARTITIONED_POOL)
                                    .doesNotContainKey("validationError");
                            assertThat(pool.get("partitionSummary")).isEqualTo(List.of(
                                    Map.of("attribute", attribute, "type", "Full", "total", 1, "allocatable", 1),
                                    Map.of("attribute", attribute, "type", "Half", "total", 2, "allocatable", 2)));
                        });
                    });
        }
    }

    @Nested
    @DisplayName("partitionable pool without a partition type [FeatureGate:DRAPartitionableDevices]")
    @Tag("FeatureGate:DRAPartitionableDevices")
    class UntypedViewSpecs {

        final Framework f = Framework.create("dra");
        final Nodes nodes = Nodes.create(f, 1, 1);
        final Driver driver = Driver.create(f, nodes, Resources.partitionableResources(false)).withKubelet(false);

        @Test
        @DisplayName("should report no partition summary when no partition type is declared [Alpha] [Beta] "
                + "[Feature:OffByDefault] [FeatureGate:DynamicResourceAllocation]")
        void reportsNoPartitionSummary() {
            PoolStatusRequests.eventually(f, PoolStatusRequests.request("e2e-untyped-", driver.name(), null, null),
                    status -> {
                        assertThat(status).isNotNull();
                        assertThat(PoolStatusRequests.complete(status)).as("condition Complete=True").isTrue();
                        assertThat(PoolStatusRequests.pools(status)).singleElement().satisfies(pool -> {
                            assertThat(pool).containsEntry("poolName", Resources.PARTITIONED_POOL);
                            assertThat((List<?>) pool.get("partitionSummary")).isNullOrEmpty();
                        });
                    });
        }
    }

    @Nested
    @DisplayName("shareable view [FeatureGate:DRAConsumableCapacity]")
    @Tag("FeatureGate:DRAConsumableCapacity")
    class ShareableViewSpecs {

        final Framework f = Framework.create("dra");
        final Nodes nodes = Nodes.create(f, 1, 1);
        final Driver driver = Driver.create(f, nodes, Resources.shareableResources(2)).withKubelet(false);

        @Test
        @DisplayName("should report shareableSummary for a pool with shareable devices [Alpha] [Beta] "
                + "[Feature:OffByDefault] [FeatureGate:DynamicResourceAllocation]")
        @SuppressWarnings("unchecked")
        void reportsShareableSummary() {
            PoolStatusRequests.eventually(f, PoolStatusRequests.request("e2e-shareable-", driver.name(), null, null),
                    status -> {
                        assertThat(status).isNotNull();
                        assertThat(PoolStatusRequests.complete(status)).as("condition Complete=True").isTrue();
                        assertThat(PoolStatusRequests.pools(status)).singleElement().satisfies(pool -> {
                            assertThat(pool).containsEntry("poolName", Resources.SHAREABLE_POOL);
                            Map<String, Object> summary = (Map<String, Object>) pool.get("shareableSummary");
                            assertThat(summary).containsEntry("fullyAvailableDevices", 2)
                                    .containsEntry("partiallyAvailableDevices", 0);
                            assertThat((List<Map<String, Object>>) summary.get("capacity")).singleElement()
                                    .satisfies(capacity -> assertThat(capacity).containsEntry("name", "memory"));
                        });
                    });
        }
    }
}
