package io.kdra.cluster.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSetStatus;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The DaemonSet controller against a real API server; the test binds pods and reports their status as the scheduler
 * and the kubelets would. Nodes are cluster-wide, so each test's nodes carry its namespace as a label and its
 * DaemonSet selects them by it.
 */
class DaemonSetControllerTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    private static ControllerCluster cluster;
    private static DaemonSetController controller;

    @BeforeAll
    static void start() {
        cluster = new ControllerCluster();
        controller = new DaemonSetController(cluster.controllers).start();
    }

    @AfterAll
    static void stop() {
        controller.close();
        cluster.close();
    }

    @Test
    void runsOnePodPerMatchingNodeThroughTheSchedulerAndCountsThem() {
        String ns = cluster.namespace();
        node(ns, "a", Map.of("role", "monitored"));
        node(ns, "b", Map.of("role", "monitored"));
        node(ns, "c", Map.of("role", "other"));
        DaemonSet ds = create(ns, daemonSet(ns, Map.of("role", "monitored"), List.of()));

        List<Pod> pods = await().atMost(WAIT).until(() -> pods(ns), list -> list.size() == 2);
        assertThat(pods).extracting(DaemonSetController::targetNode)
                .containsExactlyInAnyOrder(ns + "-a", ns + "-b");
        assertThat(pods).allSatisfy(pod -> {
            assertThat(pod.getMetadata().getName()).startsWith("monitoring-ds-");
            assertThat(pod.getSpec().getNodeName()).as("placed by the scheduler, not the controller").isNull();
            assertThat(pod.getMetadata().getOwnerReferences()).singleElement().satisfies(owner -> {
                assertThat(owner.getKind()).isEqualTo("DaemonSet");
                assertThat(owner.getUid()).isEqualTo(ds.getMetadata().getUid());
                assertThat(owner.getController()).isTrue();
            });
            assertThat(pod.getMetadata().getLabels()).containsEntry("app", "monitoring")
                    .containsKey(DaemonSetController.REVISION_HASH_LABEL)
                    .containsEntry(DaemonSetController.TEMPLATE_GENERATION_LABEL, "1");
            assertThat(pod.getSpec().getTolerations()).extracting(Toleration::getKey)
                    .contains("node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable",
                            "node.kubernetes.io/unschedulable");
        });
        DaemonSetStatus pending = awaitStatus(ns, status -> status.getDesiredNumberScheduled() == 2);
        assertThat(pending.getCurrentNumberScheduled()).isZero();
        assertThat(pending.getNumberUnavailable()).isEqualTo(2);

        for (Pod pod : pods) {
            cluster.bind(ns, pod.getMetadata().getName(), DaemonSetController.targetNode(pod));
        }
        awaitStatus(ns, status -> status.getCurrentNumberScheduled() == 2 && status.getNumberReady() == 0);
        for (Pod pod : pods) {
            makeReady(ns, pod);
        }
        DaemonSetStatus ready = awaitStatus(ns, status -> status.getNumberAvailable() == 2);
        assertThat(ready.getNumberReady()).isEqualTo(2);
        assertThat(ready.getNumberUnavailable()).isZero();
        assertThat(ready.getUpdatedNumberScheduled()).isEqualTo(2);
        assertThat(ready.getNumberMisscheduled()).isZero();
        assertThat(ready.getObservedGeneration()).isEqualTo(1);
    }

    @Test
    void followsNodesThatComeAndChangeTheirLabels() {
        String ns = cluster.namespace();
        node(ns, "a", Map.of("role", "monitored"));
        create(ns, daemonSet(ns, Map.of("role", "monitored"), List.of()));
        await().atMost(WAIT).until(() -> pods(ns).size() == 1);

        node(ns, "b", Map.of("role", "monitored"));
        await().atMost(WAIT).until(() -> targets(ns), targets -> targets.equals(List.of(ns + "-a", ns + "-b")));

        cluster.admin.nodes().withName(ns + "-a").edit(node -> new NodeBuilder(node).editMetadata()
                .addToLabels("role", "other").endMetadata().build());
        await().atMost(WAIT).until(() -> targets(ns), targets -> targets.equals(List.of(ns + "-b")));
        awaitStatus(ns, status -> status.getDesiredNumberScheduled() == 1);
    }

    @Test
    void honoursTaintsAndTolerations() {
        String ns = cluster.namespace();
        node(ns, "plain", Map.of());
        Node tainted = node(ns, "tainted", Map.of());
        taint(tainted, new Taint("NoSchedule", "example.com/gpu", null, "only-gpu"));
        Node dedicated = node(ns, "dedicated", Map.of());
        taint(dedicated, new Taint("NoExecute", "example.com/dedicated", null, "monitoring"));
        create(ns, daemonSet(ns, Map.of(), List.of(
                new Toleration("NoExecute", "example.com/dedicated", "Equal", null, "monitoring"))));

        await().atMost(WAIT).until(() -> targets(ns),
                targets -> targets.equals(List.of(ns + "-dedicated", ns + "-plain")));

        // a NoSchedule taint only keeps new pods away; a NoExecute taint evicts
        for (Pod pod : pods(ns)) {
            cluster.bind(ns, pod.getMetadata().getName(), DaemonSetController.targetNode(pod));
        }
        taint(cluster.admin.nodes().withName(ns + "-plain").get(),
                new Taint("NoSchedule", "example.com/maintenance", null, "soon"));
        awaitStatus(ns, status -> status.getDesiredNumberScheduled() == 1 && status.getNumberMisscheduled() == 1);
        assertThat(targets(ns)).containsExactly(ns + "-dedicated", ns + "-plain");

        taint(cluster.admin.nodes().withName(ns + "-plain").get(),
                new Taint("NoExecute", "example.com/maintenance", null, "now"));
        await().atMost(WAIT).until(() -> targets(ns), targets -> targets.equals(List.of(ns + "-dedicated")));
        awaitStatus(ns, status -> status.getNumberMisscheduled() == 0);
    }

    @Test
    void replacesAFailedPodAndRemovesExtraOnes() {
        String ns = cluster.namespace();
        node(ns, "a", Map.of());
        create(ns, daemonSet(ns, Map.of(), List.of()));
        Pod first = await().atMost(WAIT).until(() -> pods(ns), list -> list.size() == 1).get(0);
        cluster.bind(ns, first.getMetadata().getName(), ns + "-a");

        cluster.setPhase(ns, first.getMetadata().getName(), "Failed");

        Pod replacement = await().atMost(WAIT).until(() -> pods(ns), list -> list.size() == 1
                && !list.get(0).getMetadata().getName().equals(first.getMetadata().getName())).get(0);
        assertThat(DaemonSetController.targetNode(replacement)).isEqualTo(ns + "-a");
        cluster.bind(ns, replacement.getMetadata().getName(), ns + "-a");

        // a second pod for the node, not yet scheduled: the scheduled one stays
        Pod extra = new PodBuilder(replacement).editMetadata().withName(null).withResourceVersion(null).withUid(null)
                .withCreationTimestamp(null).endMetadata().editSpec().withNodeName(null).endSpec().withStatus(null)
                .build();
        cluster.admin.pods().inNamespace(ns).resource(extra).create();
        await().atMost(WAIT).until(() -> pods(ns), list -> list.size() == 1
                && list.get(0).getMetadata().getName().equals(replacement.getMetadata().getName()));
    }

    private static Node node(String ns, String suffix, Map<String, String> labels) {
        return cluster.admin.nodes().resource(new NodeBuilder().withNewMetadata().withName(ns + "-" + suffix)
                .addToLabels("test-namespace", ns).addToLabels(labels).endMetadata().build()).create();
    }

    private static void taint(Node node, Taint taint) {
        cluster.admin.nodes().withName(node.getMetadata().getName()).edit(current -> new NodeBuilder(current)
                .editOrNewSpec().addToTaints(taint).endSpec().build());
    }

    private static DaemonSet daemonSet(String ns, Map<String, String> nodeSelector, List<Toleration> tolerations) {
        return new DaemonSetBuilder().withNewMetadata().withName("monitoring-ds").endMetadata()
                .withNewSpec().withNewSelector().addToMatchLabels("app", "monitoring").endSelector()
                .withNewTemplate().withNewMetadata().addToLabels("app", "monitoring").endMetadata()
                .withNewSpec().addToNodeSelector("test-namespace", ns).addToNodeSelector(nodeSelector)
                .withTolerations(tolerations)
                .addNewContainer().withName("c").withImage("busybox").endContainer().endSpec()
                .endTemplate().endSpec().build();
    }

    private static DaemonSet create(String ns, DaemonSet ds) {
        return cluster.admin.apps().daemonSets().inNamespace(ns).resource(ds).create();
    }

    private static List<Pod> pods(String ns) {
        return cluster.admin.pods().inNamespace(ns).withLabel("app", "monitoring").list().getItems().stream()
                .filter(p -> p.getMetadata().getDeletionTimestamp() == null).toList();
    }

    private static List<String> targets(String ns) {
        return pods(ns).stream().map(DaemonSetController::targetNode).sorted().toList();
    }

    private static void makeReady(String ns, Pod pod) {
        cluster.setStatus(ns, pod.getMetadata().getName(), "{\"phase\":\"Running\",\"conditions\":[{\"type\":\"Ready\","
                + "\"status\":\"True\",\"lastTransitionTime\":\"2026-01-01T00:00:00Z\"}]}");
    }

    private static DaemonSetStatus awaitStatus(String ns, Predicate<DaemonSetStatus> condition) {
        return await().atMost(WAIT).until(
                () -> cluster.admin.apps().daemonSets().inNamespace(ns).withName("monitoring-ds").get().getStatus(),
                status -> status != null && status.getDesiredNumberScheduled() != null && condition.test(status));
    }
}
