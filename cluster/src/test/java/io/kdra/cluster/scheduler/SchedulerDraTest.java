package io.kdra.cluster.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClassBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1beta2.DeviceTaintRule;
import io.fabric8.kubernetes.api.model.resource.v1beta2.DeviceTaintRuleBuilder;
import io.kdra.cluster.Timing;
import io.kdra.kube.FeatureGates;
import io.kdra.kube.KubernetesVersion;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Claims: requeue on DRA events, sharing, competition, CEL errors, determinism, no device handed out twice. */
class SchedulerDraTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    private SchedulerFixture cluster;

    @BeforeEach
    void start() {
        cluster = new SchedulerFixture();
    }

    @AfterEach
    void stop() {
        cluster.close();
    }

    @Test
    void podWaitsForItsDeviceClassThenForDevicesThenIsScheduled() {
        cluster.node("node-a");
        cluster.claim("c");
        cluster.claimPod("p", "c");
        await().atMost(WAIT).untilAsserted(() -> assertThat(cluster.schedulingMessage("p")).isEqualTo(
                "0/1 nodes are available: request req: device class example does not exist. no new claims to"
                        + " deallocate, preemption: 0/1 nodes are available: 1 Preemption is not helpful for"
                        + " scheduling."));

        cluster.deviceClass(SchedulerFixture.CLASS);
        await().atMost(WAIT).untilAsserted(() -> assertThat(cluster.schedulingMessage("p")).isEqualTo(
                "0/1 nodes are available: 1 cannot allocate all claims. still not schedulable, preemption: 0/1"
                        + " nodes are available: 1 Preemption is not helpful for scheduling."));

        cluster.slice("node-a", 1);
        await().atMost(WAIT).until(() -> "node-a".equals(cluster.nodeOf("p")));
    }

    @Test
    void classWhoseSelectorsChangeRequeuesThePod() {
        cluster.node("node-a");
        cluster.slice("node-a", 1);
        cluster.deviceClass(SchedulerFixture.CLASS, "false");
        cluster.claim("c");
        cluster.claimPod("p", "c");
        await().atMost(WAIT).until(() -> cluster.schedulingMessage("p") != null
                && cluster.schedulingMessage("p").contains("cannot allocate all claims"));

        cluster.client.resources(DeviceClass.class).withName(SchedulerFixture.CLASS).edit(deviceClass ->
                new DeviceClassBuilder(deviceClass).editSpec().removeFromSelectors(deviceClass.getSpec()
                        .getSelectors().get(1)).endSpec().build());
        await().atMost(WAIT).until(() -> "node-a".equals(cluster.nodeOf("p")));
    }

    @Test
    void sharedClaimBringsTheSecondPodToTheFirstPodsNode() {
        cluster.node("node-a");
        cluster.node("node-b");
        cluster.slice("node-a", 1);
        cluster.slice("node-b", 1);
        cluster.deviceClass(SchedulerFixture.CLASS);
        cluster.claim("shared");
        cluster.claimPod("p1", "shared");
        cluster.claimPod("p2", "shared");

        await().atMost(WAIT).until(() -> cluster.nodeOf("p1") != null && cluster.nodeOf("p2") != null);
        assertThat(cluster.nodeOf("p2")).isEqualTo(cluster.nodeOf("p1"));
        ResourceClaim claim = cluster.claimNamed("shared");
        assertThat(claim.getStatus().getReservedFor()).extracting(reference -> reference.getName())
                .containsExactlyInAnyOrder("p1", "p2");
        assertThat(claim.getStatus().getAllocation().getDevices().getResults()).singleElement()
                .satisfies(result -> assertThat(result.getPool()).isEqualTo(cluster.nodeOf("p1")));
    }

    @Test
    void podsCompetingForTheLastDeviceTakeTurns() {
        cluster.node("node-a");
        cluster.slice("node-a", 1);
        cluster.deviceClass(SchedulerFixture.CLASS);
        cluster.claim("c1");
        cluster.claim("c2");
        cluster.claimPod("p1", "c1");
        cluster.claimPod("p2", "c2");

        await().atMost(WAIT).until(() -> cluster.nodeOf("p1") != null || cluster.nodeOf("p2") != null);
        String winner = cluster.nodeOf("p1") != null ? "p1" : "p2";
        String loser = winner.equals("p1") ? "p2" : "p1";
        String winnerClaim = winner.equals("p1") ? "c1" : "c2";
        await().atMost(WAIT).untilAsserted(() -> assertThat(cluster.schedulingMessage(loser))
                .startsWith("0/1 nodes are available: 1 cannot allocate all claims."));
        assertThat(cluster.nodeOf(loser)).isNull();

        // the resourceclaim controller's part once the winner is gone: the claim is deallocated
        cluster.client.pods().withName(winner).withGracePeriod(0).delete();
        cluster.deallocate(winnerClaim);
        await().atMost(WAIT).until(() -> "node-a".equals(cluster.nodeOf(loser)));
    }

    @Test
    void deviceTaintRuleKeepsThePodPendingUntilItIsDeleted() {
        cluster.close();
        // the rule exists before the scheduler starts: created after it, the rule's and the pod's events come
        // through two informers, and the pod's could be scheduled first
        cluster = new SchedulerFixture(FeatureGates.defaults(KubernetesVersion.parse("1.35"))
                .with(FeatureGates.DRA_DEVICE_TAINTS, true).with(FeatureGates.DRA_DEVICE_TAINT_RULES, true),
                Timing.FAST, admin -> admin.resources(DeviceTaintRule.class).resource(new DeviceTaintRuleBuilder()
                        .withNewMetadata().withName("maintenance").endMetadata().withNewSpec().withNewDeviceSelector()
                        .withDriver(SchedulerFixture.DRIVER).endDeviceSelector().withNewTaint()
                        .withKey("example.com/down").withValue("yes").withEffect("NoSchedule").endTaint().endSpec()
                        .build()).create());
        cluster.node("node-a");
        cluster.slice("node-a", 1);
        cluster.deviceClass(SchedulerFixture.CLASS);
        cluster.claim("c");
        cluster.claimPod("p", "c");
        await().atMost(WAIT).until(() -> cluster.schedulingMessage("p") != null
                && cluster.schedulingMessage("p").contains("cannot allocate all claims"));

        cluster.client.resources(DeviceTaintRule.class).withName("maintenance").delete();
        await().atMost(WAIT).until(() -> "node-a".equals(cluster.nodeOf("p")));
    }

    @Test
    void celRuntimeErrorIsReported() {
        cluster.node("node-a");
        cluster.slice("node-a", List.of(new DeviceBuilder().withName("device-00").build()));
        cluster.deviceClass(SchedulerFixture.CLASS, "device.attributes[\"" + SchedulerFixture.DRIVER + "\"].exists");
        cluster.claim("c");
        cluster.claimPod("p", "c");
        await().atMost(WAIT).untilAsserted(() -> {
            PodCondition condition = cluster.scheduledCondition("p");
            assertThat(condition).isNotNull();
            assertThat(condition.getReason()).isEqualTo("SchedulerError");
            assertThat(condition.getMessage()).startsWith("running \"DynamicResources\" filter plugin: ")
                    .contains("CEL runtime error");
        });
        assertThat(cluster.nodeOf("p")).isNull();
    }

    @Test
    void nodeChoiceFollowsNameOrderFromWhereTheLastSearchStopped() {
        for (String node : List.of("node-c", "node-a", "node-b")) {
            cluster.node(node);
            cluster.slice(node, 2);
        }
        cluster.deviceClass(SchedulerFixture.CLASS);
        List<String> chosen = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            String name = "p" + i;
            cluster.claim("c" + i);
            cluster.claimPod(name, "c" + i);
            await().atMost(WAIT).until(() -> cluster.nodeOf(name) != null);
            chosen.add(cluster.nodeOf(name));
        }
        assertThat(chosen).containsExactly("node-a", "node-b", "node-c", "node-a");
    }

    @Test
    void inFlightAllocationsNeverHandOutADeviceTwice() {
        for (int n = 0; n < 3; n++) {
            cluster.node("node-" + n);
            cluster.slice("node-" + n, 2);
        }
        cluster.deviceClass(SchedulerFixture.CLASS);
        int pods = 15;
        for (int i = 0; i < pods; i++) {
            cluster.claim("c" + i);
            cluster.claimPod("p" + i, "c" + i);
        }
        await().atMost(WAIT).untilAsserted(() -> {
            int bound = 0;
            int unschedulable = 0;
            for (int i = 0; i < pods; i++) {
                if (cluster.nodeOf("p" + i) != null) {
                    bound++;
                } else if (cluster.schedulingMessage("p" + i) != null) {
                    unschedulable++;
                }
            }
            assertThat(bound).isEqualTo(6);
            assertThat(unschedulable).isEqualTo(pods - 6);
        });
        assertThat(cluster.allocatedDevices()).hasSize(6).doesNotHaveDuplicates();
    }
}
