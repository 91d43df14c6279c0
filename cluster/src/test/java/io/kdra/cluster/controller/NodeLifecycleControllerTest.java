package io.kdra.cluster.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.kdra.cluster.Timing;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class NodeLifecycleControllerTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    private static ControllerCluster cluster;

    @BeforeAll
    static void startServer() {
        cluster = new ControllerCluster();
    }

    @AfterAll
    static void stopServer() {
        cluster.close();
    }

    private static String now() {
        return DateTimeFormatter.ISO_INSTANT.format(Instant.now().truncatedTo(ChronoUnit.SECONDS));
    }

    private static java.time.ZonedDateTime microNow() {
        return java.time.ZonedDateTime.now(java.time.ZoneOffset.UTC).truncatedTo(ChronoUnit.MICROS);
    }

    /** What a kubelet does on start: its Node, Ready, and its Lease. */
    private static void registerNode(String name) {
        cluster.admin.nodes().resource(new NodeBuilder().withNewMetadata().withName(name).endMetadata()
                .withNewStatus().addNewCondition().withType("Ready").withStatus("True").withReason("KubeletReady")
                .withMessage("kubelet is posting ready status").withLastHeartbeatTime(now())
                .withLastTransitionTime(now()).endCondition().endStatus().build()).create();
        cluster.admin.leases().inNamespace(NodeLifecycleController.LEASE_NAMESPACE).resource(new LeaseBuilder()
                .withNewMetadata().withName(name).endMetadata().withNewSpec().withHolderIdentity(name)
                .withLeaseDurationSeconds(40).withRenewTime(microNow()).endSpec().build()).create();
    }

    /** What a kubelet that comes back does: renew its Lease and post Ready again. */
    private static void kubeletIsBack(String name) {
        var leases = cluster.admin.leases().inNamespace(NodeLifecycleController.LEASE_NAMESPACE);
        Lease lease = leases.withName(name).get();
        lease.getSpec().setRenewTime(microNow());
        leases.resource(lease).update();
        Node node = cluster.admin.nodes().withName(name).get();
        node.getStatus().setConditions(List.of(new io.fabric8.kubernetes.api.model.NodeConditionBuilder()
                .withType("Ready").withStatus("True").withReason("KubeletReady")
                .withMessage("kubelet is posting ready status").withLastHeartbeatTime(now())
                .withLastTransitionTime(now()).build()));
        cluster.admin.nodes().resource(node).updateStatus();
    }

    private static NodeCondition condition(Node node, String type) {
        return node.getStatus().getConditions().stream().filter(c -> type.equals(c.getType())).findFirst()
                .orElse(null);
    }

    private static List<Taint> taints(Node node) {
        return node.getSpec() == null || node.getSpec().getTaints() == null ? List.of() : node.getSpec().getTaints();
    }

    @Test
    void aNodeWhoseLeaseIsNotRenewedBecomesUnknownAndUnreachableThenReadyAgain() {
        registerNode("quiet");
        Timing timing = Timing.FAST.withNodeMonitorGracePeriod(Duration.ofSeconds(2));
        try (var controller = new NodeLifecycleController(cluster.controllers, timing).start()) {
            Node node = await().atMost(WAIT).until(() -> cluster.admin.nodes().withName("quiet").get(),
                    n -> "Unknown".equals(condition(n, "Ready").getStatus()) && taints(n).size() == 2);

            NodeCondition ready = condition(node, "Ready");
            assertThat(ready.getReason()).isEqualTo("NodeStatusUnknown");
            assertThat(ready.getMessage()).isEqualTo("Kubelet stopped posting node status.");
            NodeCondition memory = condition(node, "MemoryPressure");
            assertThat(memory.getStatus()).isEqualTo("Unknown");
            assertThat(memory.getReason()).isEqualTo("NodeStatusNeverUpdated");
            assertThat(memory.getMessage()).isEqualTo("Kubelet never posted node status.");
            assertThat(taints(node)).extracting(Taint::getKey, Taint::getEffect).containsExactlyInAnyOrder(
                    org.assertj.core.groups.Tuple.tuple(NodeLifecycleController.UNREACHABLE, "NoSchedule"),
                    org.assertj.core.groups.Tuple.tuple(NodeLifecycleController.UNREACHABLE, "NoExecute"));
            assertThat(taints(node).stream().filter(t -> "NoExecute".equals(t.getEffect())).findFirst().orElseThrow()
                    .getTimeAdded()).isNotNull();

            kubeletIsBack("quiet");

            Node back = await().atMost(WAIT).until(() -> cluster.admin.nodes().withName("quiet").get(),
                    n -> taints(n).isEmpty());
            assertThat(condition(back, "Ready").getStatus()).isEqualTo("True");
        }
    }

    @Test
    void aNodeThatReportsNotReadyGetsTheNotReadyTaints() {
        registerNode("sick");
        try (var controller = new NodeLifecycleController(cluster.controllers, Timing.REAL).start()) {
            Node node = cluster.admin.nodes().withName("sick").get();
            node.getStatus().getConditions().get(0).setStatus("False");
            node.getStatus().getConditions().get(0).setReason("KubeletNotReady");
            cluster.admin.nodes().resource(node).updateStatus();

            Node tainted = await().atMost(WAIT).until(() -> cluster.admin.nodes().withName("sick").get(),
                    n -> taints(n).size() == 2);
            assertThat(taints(tainted)).allMatch(t -> NodeLifecycleController.NOT_READY.equals(t.getKey()));
            assertThat(condition(tainted, "Ready").getStatus()).as("a kubelet that posts is not overruled")
                    .isEqualTo("False");
        }
    }
}
