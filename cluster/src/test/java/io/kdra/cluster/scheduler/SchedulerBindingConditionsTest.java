package io.kdra.cluster.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.resource.v1.AllocatedDeviceStatusBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.client.Watch;
import io.kdra.apiserver.ApiServerConfig;
import io.kdra.cluster.Timing;
import io.kdra.kube.FeatureGates;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** KEP-5007: the pod is bound only once its devices' binding conditions are true; failures and timeouts deallocate. */
class SchedulerBindingConditionsTest {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final FeatureGates GATES = ApiServerConfig.defaults().featureGates()
            .with(FeatureGates.DRA_DEVICE_BINDING_CONDITIONS, true)
            .with(FeatureGates.DRA_RESOURCE_CLAIM_DEVICE_STATUS, true);

    @Test
    void podIsBoundOnceTheBindingConditionsAreTrue() {
        try (SchedulerFixture cluster = new SchedulerFixture(GATES, Timing.FAST)) {
            setUp(cluster);
            await().atMost(WAIT).until(() -> reserved(cluster.claimNamed("c")));
            ResourceClaim allocated = cluster.claimNamed("c");
            assertThat(allocated.getStatus().getAllocation().getAllocationTimestamp()).isNotNull();
            assertThat(allocated.getStatus().getAllocation().getDevices().getResults().get(0).getBindingConditions())
                    .containsExactly("attached");
            await().atMost(WAIT).untilAsserted(() -> assertThat(cluster.client.v1().events()
                    .withField("involvedObject.name", "p").list().getItems()).anySatisfy(event -> {
                        assertThat(event.getReason()).isEqualTo("BindingConditionsPending");
                        assertThat(event.getMessage()).isEqualTo(
                                "waiting for binding conditions for device on node node-a");
                    }));
            assertThat(cluster.nodeOf("p")).isNull();

            setDeviceCondition(cluster, "attached");
            await().atMost(WAIT).until(() -> "node-a".equals(cluster.nodeOf("p")));
        }
    }

    @Test
    void bindingFailureConditionDeallocatesTheClaim() {
        try (SchedulerFixture cluster = new SchedulerFixture(GATES, Timing.FAST)) {
            List<ResourceClaim> versions = new CopyOnWriteArrayList<>();
            try (Watch watch = cluster.client.resources(ResourceClaim.class).watch(SchedulerFixture.recorder(versions))) {
                setUp(cluster);
                await().atMost(WAIT).until(() -> reserved(cluster.claimNamed("c")));
                setDeviceCondition(cluster, "failed");
                await().atMost(WAIT).until(() -> deallocatedAfterAllocation(versions));
                assertThat(cluster.nodeOf("p")).isNull();
            }
        }
    }

    @Test
    void bindingTimeoutDeallocatesTheClaim() {
        Timing timing = Timing.FAST.withBindingTimeout(Duration.ofSeconds(2));
        try (SchedulerFixture cluster = new SchedulerFixture(GATES, timing)) {
            List<ResourceClaim> versions = new CopyOnWriteArrayList<>();
            try (Watch watch = cluster.client.resources(ResourceClaim.class).watch(SchedulerFixture.recorder(versions))) {
                setUp(cluster);
                await().atMost(WAIT).until(() -> deallocatedAfterAllocation(versions));
                await().atMost(WAIT).untilAsserted(() -> assertThat(cluster.client.v1().events()
                        .withField("involvedObject.name", "p").list().getItems()).anySatisfy(event ->
                                assertThat(event.getMessage()).isEqualTo("running PreBind plugin"
                                        + " \"DynamicResources\": claim c binding timeout")));
                assertThat(cluster.nodeOf("p")).isNull();
            }
        }
    }

    private static void setUp(SchedulerFixture cluster) {
        cluster.node("node-a");
        cluster.slice("node-a", List.of(new DeviceBuilder().withName("device-00").withBindsToNode(true)
                .withBindingConditions("attached").withBindingFailureConditions("failed").build()));
        cluster.deviceClass(SchedulerFixture.CLASS);
        cluster.claim("c");
        cluster.claimPod("p", "c");
    }

    private static boolean reserved(ResourceClaim claim) {
        return claim != null && claim.getStatus() != null && claim.getStatus().getAllocation() != null
                && claim.getStatus().getReservedFor() != null && !claim.getStatus().getReservedFor().isEmpty();
    }

    /** What a driver's controller does when the device is attached (or failed to attach). */
    private static void setDeviceCondition(SchedulerFixture cluster, String type) {
        cluster.client.resources(ResourceClaim.class).withName("c").editStatus(claim -> {
            DeviceRequestAllocationResult result = claim.getStatus().getAllocation().getDevices().getResults().get(0);
            return new ResourceClaimBuilder(claim).editStatus().withDevices(new AllocatedDeviceStatusBuilder()
                    .withDriver(result.getDriver()).withPool(result.getPool()).withDevice(result.getDevice())
                    .withConditions(SchedulerFixture.condition(type, "True")).build()).endStatus().build();
        });
    }

    private static boolean deallocatedAfterAllocation(List<ResourceClaim> versions) {
        boolean allocated = false;
        for (ResourceClaim claim : versions) {
            boolean has = claim.getStatus() != null && claim.getStatus().getAllocation() != null;
            if (allocated && !has) {
                return true;
            }
            allocated |= has;
        }
        return false;
    }
}
