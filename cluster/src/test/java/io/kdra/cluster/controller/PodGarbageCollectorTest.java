package io.kdra.cluster.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.kdra.cluster.Timing;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class PodGarbageCollectorTest {

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

    private static Pod podOn(String ns, String name, String node, String finalizer) {
        return cluster.admin.pods().inNamespace(ns).resource(new PodBuilder().withNewMetadata().withName(name)
                .withFinalizers(finalizer == null ? List.of() : List.of(finalizer)).endMetadata()
                .withNewSpec().withNodeName(node).addNewContainer().withName("c").withImage("busybox").endContainer()
                .endSpec().build()).create();
    }

    @Test
    void podsOfADeletedNodeAreMarkedFailedAndDeleted() {
        String ns = cluster.namespace();
        cluster.admin.nodes().resource(new NodeBuilder().withNewMetadata().withName("doomed").endMetadata().build())
                .create();
        cluster.admin.nodes().resource(new NodeBuilder().withNewMetadata().withName("healthy").endMetadata().build())
                .create();
        podOn(ns, "kept", "doomed", "test.kdra.io/keep");
        podOn(ns, "plain", "doomed", null);
        cluster.setPhase(ns, "kept", "Running");
        podOn(ns, "survivor", "healthy", null);

        try (var gc = new PodGarbageCollector(cluster.controllers, Timing.REAL).start()) {
            cluster.admin.nodes().withName("doomed").delete();

            await().atMost(WAIT).until(() -> cluster.admin.pods().inNamespace(ns).withName("plain").get() == null);
            Pod kept = await().atMost(WAIT).until(() -> cluster.admin.pods().inNamespace(ns).withName("kept").get(),
                    pod -> pod.getMetadata().getDeletionTimestamp() != null);
            assertThat(kept.getStatus().getPhase()).isEqualTo("Failed");
            PodCondition condition = kept.getStatus().getConditions().stream()
                    .filter(c -> "DisruptionTarget".equals(c.getType())).findFirst().orElseThrow();
            assertThat(condition.getStatus()).isEqualTo("True");
            assertThat(condition.getReason()).isEqualTo("DeletionByPodGC");
            assertThat(condition.getMessage()).isEqualTo("PodGC: node no longer exists");
            assertThat(cluster.admin.pods().inNamespace(ns).withName("survivor").get().getMetadata()
                    .getDeletionTimestamp()).isNull();
        } finally {
            cluster.admin.pods().inNamespace(ns).withName("kept").edit(pod -> new PodBuilder(pod).editMetadata()
                    .withFinalizers(List.of()).endMetadata().build());
        }
    }

    @Test
    void theFirstPassCollectsPodsWhoseNodeWentAwayBeforeTheCollectorStarted() {
        String ns = cluster.namespace();
        podOn(ns, "orphan", "never-existed", null);

        try (var gc = new PodGarbageCollector(cluster.controllers, Timing.REAL).start()) {
            await().atMost(WAIT).until(() -> cluster.admin.pods().inNamespace(ns).withName("orphan").get() == null);
        }
    }
}
