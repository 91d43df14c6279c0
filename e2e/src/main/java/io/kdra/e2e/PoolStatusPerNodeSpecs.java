package io.kdra.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceBuilder;
import io.kdra.framework.DraSpec;
import io.kdra.framework.Driver;
import io.kdra.framework.Framework;
import io.kdra.framework.Nodes;
import io.kdra.framework.Resources;
import io.kdra.framework.Waits;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * dra.go group AD: ResourcePoolStatusRequest reports of a driver on two nodes with one node-local pool each and no
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
class PoolStatusPerNodeSpecs {

    final Framework f = Framework.create("dra");
    final Nodes nodes = Nodes.create(f, 2, 2);
    final Driver driver = Driver.create(f, nodes, Resources.driverResources(1)).withKubelet(false);

    @Test
    @DisplayName("should populate status for all matching pools [Alpha] [Feature:OffByDefault] "
            + "[FeatureGate:DynamicResourceAllocation]")
    void populatesStatusForAllMatchingPools() {
        PoolStatusRequests.eventually(f, PoolStatusRequests.request("e2e-basic-", driver.name(), null, null),
                status -> {
                    assertThat(status).isNotNull();
                    assertThat(PoolStatusRequests.pools(status)).hasSize(2);
                    assertThat(status).containsEntry("poolCount", 2);
                    assertThat(PoolStatusRequests.complete(status)).as("condition Complete=True").isTrue();
                });
    }

    @Test
    @DisplayName("should filter by pool name [Alpha] [Feature:OffByDefault] [FeatureGate:DynamicResourceAllocation]")
    void filtersByPoolName() {
        Waits.until("a filtered ResourcePoolStatusRequest", Duration.ofSeconds(60)).pollInterval(Duration.ofSeconds(2))
                .ignoreExceptions().untilAsserted(() -> {
                    // first all pools, to pick a name
                    String[] poolName = new String[1];
                    PoolStatusRequests.eventually(f, PoolStatusRequests.request("e2e-filter-all-", driver.name(),
                            null, null), status -> {
                                assertThat(status).isNotNull();
                                assertThat(PoolStatusRequests.pools(status)).isNotEmpty();
                                poolName[0] = (String) PoolStatusRequests.pools(status).get(0).get("poolName");
                            });
                    PoolStatusRequests.eventually(f, PoolStatusRequests.request("e2e-filter-one-", driver.name(),
                            poolName[0], null), status -> {
                                assertThat(status).isNotNull().containsEntry("poolCount", 1);
                                assertThat(PoolStatusRequests.pools(status)).singleElement()
                                        .satisfies(pool -> assertThat(pool).containsEntry("poolName", poolName[0]));
                            });
                });
    }

    @Test
    @DisplayName("should truncate results when limit is reached [Alpha] [Feature:OffByDefault] "
            + "[FeatureGate:DynamicResourceAllocation]")
    void truncatesResultsWhenLimitIsReached() {
        PoolStatusRequests.eventually(f, PoolStatusRequests.request("e2e-limit-", driver.name(), null, 1),
                status -> {
                    assertThat(status).isNotNull();
                    assertThat(PoolStatusRequests.pools(status)).hasSize(1);
                    assertThat(status).containsEntry("poolCount", 2);
                });
    }

    @Test
    @DisplayName("should return empty pools for unknown driver [Alpha] [Feature:OffByDefault] "
            + "[FeatureGate:DynamicResourceAllocation]")
    void returnsEmptyPoolsForUnknownDriver() {
        GenericKubernetesResource request = PoolStatusRequests.create(f, PoolStatusRequests.request("e2e-unknown-",
                "nonexistent.driver.example.com", null, null));
        Waits.until("status of " + request.getMetadata().getName(), Duration.ofSeconds(30)).ignoreExceptions()
                .untilAsserted(() -> {
                    Map<String, Object> status = PoolStatusRequests.status(f, request.getMetadata().getName());
                    assertThat(status).isNotNull().containsEntry("poolCount", 0);
                    assertThat(PoolStatusRequests.pools(status)).isEmpty();
                });
    }

    @Test
    @DisplayName("should not reprocess after status is set [Alpha] [Feature:OffByDefault] "
            + "[FeatureGate:DynamicResourceAllocation]")
    void doesNotReprocessAfterStatusIsSet() {
        GenericKubernetesResource request = PoolStatusRequests.create(f, PoolStatusRequests.request(
                "e2e-noreprocess-", driver.name(), null, null));
        String name = request.getMetadata().getName();
        Waits.until("status of " + name, Duration.ofSeconds(30))
                .until(() -> PoolStatusRequests.status(f, name) != null);
        String resourceVersion = PoolStatusRequests.client(f).withName(name).get().getMetadata()
                .getResourceVersion();

        // a one-time snapshot: the resourceVersion stays
        Waits.during("ResourcePoolStatusRequest " + name + " unchanged", Duration.ofSeconds(5))
                .until(() -> PoolStatusRequests.client(f).withName(name).get().getMetadata().getResourceVersion()
                        .equals(resourceVersion));
    }

    @Test
    @DisplayName("should set NodeName when all slices share the same node [Alpha] [Feature:OffByDefault] "
            + "[FeatureGate:DynamicResourceAllocation]")
    void setsNodeNameWhenAllSlicesShareTheSameNode() {
        PoolStatusRequests.eventually(f, PoolStatusRequests.request("e2e-nodename-set-", driver.name(), null, null),
                status -> {
                    assertThat(status).isNotNull().containsKey("poolCount");
                    assertThat(PoolStatusRequests.pools(status)).isNotEmpty()
                            .allSatisfy(pool -> assertThat(pool).containsKey("nodeName"));
                    assertThat(PoolStatusRequests.complete(status)).as("condition Complete=True").isTrue();
                });
    }

    @Test
    @DisplayName("should clear NodeName when pool has slices on different nodes [Alpha] [Feature:OffByDefault] "
            + "[FeatureGate:DynamicResourceAllocation]")
    void clearsNodeNameWhenPoolHasSlicesOnDifferentNodes() {
        String mixedPoolName = "mixed-node-pool";
        for (int i = 0; i < 2; i++) {
            ResourceSlice slice = new ResourceSliceBuilder().withNewMetadata()
                    .withName(driver.name() + "-mixed-node-" + i).endMetadata().withNewSpec()
                    .withDriver(driver.name()).withNodeName(nodes.nodeNames().get(i)).withNewPool()
                    .withName(mixedPoolName).withGeneration(1L).withResourceSliceCount(2L).endPool()
                    .addNewDevice().withName("device-" + i).endDevice().endSpec().build();
            f.client().resource(slice).create();
            f.cleanup("delete slice " + slice.getMetadata().getName(), () -> f.client()
                    .resources(ResourceSlice.class).withName(slice.getMetadata().getName()).delete());
        }

        PoolStatusRequests.eventually(f, PoolStatusRequests.request("e2e-nodename-clear-", driver.name(),
                mixedPoolName, null), status -> {
                    assertThat(status).isNotNull().containsEntry("poolCount", 1);
                    assertThat(PoolStatusRequests.pools(status)).singleElement()
                            .satisfies(pool -> assertThat(pool).doesNotContainKey("nodeName"));
                    assertThat(PoolStatusRequests.complete(status)).as("condition Complete=True").isTrue();
                });
    }
}
