package io.kdra.cluster.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirementBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** nodeSelector, required node affinity, taints and tolerations, NotReady and unschedulable nodes. */
class SchedulerNodeFilterTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    private SchedulerFixture cluster;

    @BeforeEach
    void start() {
        cluster = new SchedulerFixture();
        cluster.node(labelled("zone-a", "a"));
        cluster.node(labelled("tainted", "t").editOrNewSpec()
                .withTaints(SchedulerFixture.taint("example.com/dedicated", "NoSchedule")).endSpec());
        cluster.client.nodes().resource(SchedulerFixture.ready(labelled("not-ready", "n"), "False").build())
                .create();
        cluster.node(labelled("cordoned", "c").editOrNewSpec().withUnschedulable(true).endSpec());
        cluster.node(labelled("zone-b", "b"));
    }

    @AfterEach
    void stop() {
        cluster.close();
    }

    private static NodeBuilder labelled(String name, String zone) {
        return new NodeBuilder().withNewMetadata().withName(name).addToLabels("zone", zone).endMetadata();
    }

    @Test
    void nodeSelectorPicksTheMatchingNode() {
        cluster.plainPod(SchedulerFixture.podBuilder("p").editSpec().addToNodeSelector("zone", "b").endSpec());
        await().atMost(WAIT).until(() -> "zone-b".equals(cluster.nodeOf("p")));
    }

    @Test
    void requiredNodeAffinityPicksTheMatchingNode() {
        cluster.plainPod(SchedulerFixture.podBuilder("p").editSpec().withNewAffinity().withNewNodeAffinity()
                .withNewRequiredDuringSchedulingIgnoredDuringExecution().addNewNodeSelectorTerm()
                .withMatchExpressions(new NodeSelectorRequirementBuilder().withKey("zone").withOperator("In")
                        .withValues("a", "x").build())
                .endNodeSelectorTerm().endRequiredDuringSchedulingIgnoredDuringExecution().endNodeAffinity()
                .endAffinity().endSpec());
        await().atMost(WAIT).until(() -> "zone-a".equals(cluster.nodeOf("p")));
    }

    @Test
    void tolerationsOpenTaintedNotReadyAndCordonedNodes() {
        cluster.plainPod(SchedulerFixture.podBuilder("tolerant").editSpec().addToNodeSelector("zone", "t")
                .withTolerations(new TolerationBuilder().withKey("example.com/dedicated").withOperator("Exists")
                        .build()).endSpec());
        cluster.plainPod(SchedulerFixture.podBuilder("daemon").editSpec().addToNodeSelector("zone", "n")
                .withTolerations(new TolerationBuilder().withKey(NodeInfo.NOT_READY_TAINT).withOperator("Exists")
                        .withEffect("NoSchedule").build()).endSpec());
        cluster.plainPod(SchedulerFixture.podBuilder("cordon-tolerant").editSpec().addToNodeSelector("zone", "c")
                .withTolerations(new TolerationBuilder().withKey(NodeInfo.UNSCHEDULABLE_TAINT).withOperator("Exists")
                        .build()).endSpec());
        await().atMost(WAIT).until(() -> "tainted".equals(cluster.nodeOf("tolerant")));
        await().atMost(WAIT).until(() -> "not-ready".equals(cluster.nodeOf("daemon")));
        await().atMost(WAIT).until(() -> "cordoned".equals(cluster.nodeOf("cordon-tolerant")));
    }

    @Test
    void unschedulablePodNamesEveryReasonThenGoesWhereANodeChangeLetsIt() {
        cluster.plainPod(SchedulerFixture.podBuilder("p").editSpec().addToNodeSelector("zone", "z").endSpec());
        await().atMost(WAIT).untilAsserted(() -> {
            PodCondition condition = cluster.scheduledCondition("p");
            assertThat(condition).isNotNull();
            assertThat(condition.getStatus()).isEqualTo("False");
            assertThat(condition.getReason()).isEqualTo("Unschedulable");
            assertThat(condition.getMessage()).isEqualTo("0/5 nodes are available: 1 node(s) were unschedulable,"
                    + " 2 node(s) didn't match Pod's node affinity/selector, 2 node(s) had untolerated taint(s)."
                    + " no new claims to deallocate, preemption: 0/5 nodes are available: 5 Preemption is not"
                    + " helpful for scheduling.");
        });
        await().atMost(WAIT).untilAsserted(() -> assertThat(cluster.client.v1().events()
                .withField("involvedObject.name", "p").list().getItems()).anySatisfy(event -> {
                    assertThat(event.getReason()).isEqualTo("FailedScheduling");
                    assertThat(event.getType()).isEqualTo("Warning");
                    assertThat(event.getMessage()).startsWith("0/5 nodes are available");
                }));

        // a cordoned node that is uncordoned and relabelled is a Node event that requeues the pod
        cluster.client.nodes().withName("cordoned").edit(node -> new NodeBuilder(node).editMetadata()
                .addToLabels("zone", "z").endMetadata().editSpec().withUnschedulable(false).endSpec().build());
        await().atMost(WAIT).until(() -> "cordoned".equals(cluster.nodeOf("p")));
    }

    @Test
    void nodeThatBecomesReadyTakesWaitingPods() {
        cluster.plainPod(SchedulerFixture.podBuilder("p").editSpec().addToNodeSelector("zone", "n").endSpec());
        await().atMost(WAIT).until(() -> cluster.schedulingMessage("p") != null);
        cluster.client.nodes().withName("not-ready").editStatus(node ->
                SchedulerFixture.ready(new NodeBuilder(node), "True").build());
        await().atMost(WAIT).until(() -> "not-ready".equals(cluster.nodeOf("p")));
    }
}
