package io.kdra.cluster.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class ReplicaSetControllerTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    private static ControllerCluster cluster;
    private static ReplicaSetController controller;

    @BeforeAll
    static void start() {
        cluster = new ControllerCluster();
        controller = new ReplicaSetController(cluster.controllers).start();
    }

    @AfterAll
    static void stop() {
        controller.close();
        cluster.close();
    }

    private static List<Pod> pods(String ns) {
        return cluster.admin.pods().inNamespace(ns).withLabel("app", "web").list().getItems().stream()
                .filter(p -> p.getMetadata().getDeletionTimestamp() == null).toList();
    }

    private static ReplicaSet replicaSet(String ns) {
        return cluster.admin.apps().replicaSets().inNamespace(ns).withName("web").get();
    }

    /** What the scheduler and the kubelet would do: the pods run and are ready. */
    private static void makeReady(String ns) {
        for (Pod pod : pods(ns)) {
            cluster.setStatus(ns, pod.getMetadata().getName(),
                    "{\"phase\":\"Running\",\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]}");
        }
    }

    @Test
    void createsThePodsOfTheTemplateReportsThemAndFollowsScale() {
        String ns = cluster.namespace();
        ReplicaSet rs = cluster.admin.apps().replicaSets().inNamespace(ns).resource(new ReplicaSetBuilder()
                .withNewMetadata().withName("web").endMetadata()
                .withNewSpec().withReplicas(3).withNewSelector().addToMatchLabels("app", "web").endSelector()
                .withNewTemplate().withNewMetadata().addToLabels("app", "web").endMetadata()
                .withNewSpec().addNewContainer().withName("c").withImage("busybox").endContainer().endSpec()
                .endTemplate().endSpec().build()).create();

        await().atMost(WAIT).until(() -> pods(ns).size() == 3);
        assertThat(pods(ns)).allSatisfy(pod -> {
            assertThat(pod.getMetadata().getName()).startsWith("web-");
            assertThat(pod.getMetadata().getOwnerReferences()).singleElement().satisfies(owner -> {
                assertThat(owner.getKind()).isEqualTo("ReplicaSet");
                assertThat(owner.getUid()).isEqualTo(rs.getMetadata().getUid());
                assertThat(owner.getController()).isTrue();
            });
        });

        makeReady(ns);
        ReplicaSet ready = await().atMost(WAIT).until(() -> replicaSet(ns),
                r -> r.getStatus() != null && Integer.valueOf(3).equals(r.getStatus().getAvailableReplicas()));
        assertThat(ready.getStatus().getReplicas()).isEqualTo(3);
        assertThat(ready.getStatus().getReadyReplicas()).isEqualTo(3);
        assertThat(ready.getStatus().getFullyLabeledReplicas()).isEqualTo(3);
        assertThat(ready.getStatus().getObservedGeneration()).isEqualTo(ready.getMetadata().getGeneration());

        cluster.admin.apps().replicaSets().inNamespace(ns).withName("web").scale(1);
        await().atMost(WAIT).until(() -> pods(ns).size() == 1);
        await().atMost(WAIT).until(() -> Integer.valueOf(1).equals(replicaSet(ns).getStatus().getReplicas()));

        cluster.admin.apps().replicaSets().inNamespace(ns).withName("web").scale(4);
        await().atMost(WAIT).until(() -> pods(ns).size() == 4);
        await().atMost(WAIT).until(() -> Integer.valueOf(4).equals(replicaSet(ns).getStatus().getReplicas()));
    }

    @Test
    void aDeletedPodIsReplaced() {
        String ns = cluster.namespace();
        cluster.admin.apps().replicaSets().inNamespace(ns).resource(new ReplicaSetBuilder()
                .withNewMetadata().withName("web").endMetadata()
                .withNewSpec().withReplicas(2).withNewSelector().addToMatchLabels("app", "web").endSelector()
                .withNewTemplate().withNewMetadata().addToLabels("app", "web").endMetadata()
                .withNewSpec().addNewContainer().withName("c").withImage("busybox").endContainer().endSpec()
                .endTemplate().endSpec().build()).create();
        await().atMost(WAIT).until(() -> pods(ns).size() == 2);
        String first = pods(ns).get(0).getMetadata().getName();

        cluster.admin.pods().inNamespace(ns).withName(first).delete();

        await().atMost(WAIT).until(() -> pods(ns).size() == 2
                && pods(ns).stream().noneMatch(p -> p.getMetadata().getName().equals(first)));
    }
}
