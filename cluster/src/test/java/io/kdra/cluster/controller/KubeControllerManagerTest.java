package io.kdra.cluster.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import io.kdra.cluster.Timing;
import io.kdra.kube.FeatureGates;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class KubeControllerManagerTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    private static long controllerThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.isAlive() && (t.getName().contains(
                "-worker-") || t.getName().endsWith("-delays") || t.getName().endsWith("-events"))).count();
    }

    @Test
    void runsTheControllersOnSharedInformersAndStopsEveryThreadItStarted() {
        try (ControllerCluster cluster = new ControllerCluster()) {
            long before = controllerThreads();
            String ns = cluster.namespace();
            try (var manager = KubeControllerManager.builder(cluster.controllers).timing(Timing.FAST)
                    .featureGates(FeatureGates.defaults(FeatureGates.NEWEST_VERSION)).build().start()) {
                Fixtures.template(cluster.admin, ns, "tmpl", null, null);
                Fixtures.pod(cluster.admin, ns, "p", "tmpl", null, null);
                cluster.admin.apps().replicaSets().inNamespace(ns).resource(new ReplicaSetBuilder()
                        .withNewMetadata().withName("web").endMetadata()
                        .withNewSpec().withReplicas(2).withNewSelector().addToMatchLabels("app", "web").endSelector()
                        .withNewTemplate().withNewMetadata().addToLabels("app", "web").endMetadata()
                        .withNewSpec().addNewContainer().withName("c").withImage("busybox").endContainer().endSpec()
                        .endTemplate().endSpec().build()).create();

                await().atMost(WAIT).until(() -> {
                    var statuses = cluster.admin.pods().inNamespace(ns).withName("p").get().getStatus()
                            .getResourceClaimStatuses();
                    return statuses != null && !statuses.isEmpty();
                });
                await().atMost(WAIT).until(() -> cluster.admin.pods().inNamespace(ns).withLabel("app", "web").list()
                        .getItems().size() == 2);
                assertThat(controllerThreads()).isGreaterThan(before);
            }
            await().atMost(WAIT).until(() -> controllerThreads() == before);
        }
    }
}
