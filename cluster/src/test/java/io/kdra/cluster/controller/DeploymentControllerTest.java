package io.kdra.cluster.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentCondition;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.kdra.cluster.Timing;
import io.kdra.kube.FeatureGates;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

class DeploymentControllerTest {

    private static final Duration WAIT = Duration.ofSeconds(60);

    @Test
    void theNewReplicaSetGrowsUpToReplicasPlusSurgeAndNeverBeyondReplicas() {
        // 3 replicas, surge 1: an old ReplicaSet of 3 leaves room for 1 new pod
        assertThat(DeploymentController.newReplicas(3, 1, 3, 0)).isEqualTo(1);
        assertThat(DeploymentController.newReplicas(3, 1, 4, 1)).isEqualTo(1);
        assertThat(DeploymentController.newReplicas(3, 1, 3, 1)).isEqualTo(2);
        assertThat(DeploymentController.newReplicas(3, 1, 0, 0)).isEqualTo(3);
        assertThat(DeploymentController.newReplicas(3, 1, 5, 5)).as("scaled down").isEqualTo(3);
    }

    @Test
    void surgeRoundsUpUnavailableDownAndBothZeroMeansOneUnavailable() {
        assertThat(DeploymentController.fenceposts(null, null, 3)).containsExactly(1, 0);
        assertThat(DeploymentController.fenceposts(null, null, 4)).containsExactly(1, 1);
        assertThat(DeploymentController.fenceposts(new IntOrString(2), new IntOrString("50%"), 5))
                .containsExactly(2, 2);
        assertThat(DeploymentController.fenceposts(new IntOrString(0), new IntOrString(0), 5)).containsExactly(0, 1);
    }

    private static List<Pod> activePods(ControllerCluster cluster, String ns) {
        return cluster.admin.pods().inNamespace(ns).withLabel("app", "web").list().getItems().stream()
                .filter(p -> p.getMetadata().getDeletionTimestamp() == null).toList();
    }

    /** The scheduler and kubelets this test lacks: every pod runs and is ready. */
    private static void makeReady(ControllerCluster cluster, String ns) {
        for (Pod pod : activePods(cluster, ns)) {
            if (!ReplicaSetController.ready(pod)) {
                cluster.setStatus(ns, pod.getMetadata().getName(),
                        "{\"phase\":\"Running\",\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]}");
            }
        }
    }

    private static DeploymentCondition condition(Deployment deployment, String type) {
        return deployment.getStatus() == null || deployment.getStatus().getConditions() == null ? null
                : deployment.getStatus().getConditions().stream().filter(c -> type.equals(c.getType())).findFirst()
                        .orElse(null);
    }

    /** What {@code kubectl rollout status} waits for. */
    private static boolean rolledOut(Deployment d) {
        var status = d.getStatus();
        int replicas = d.getSpec().getReplicas();
        return status != null && status.getObservedGeneration() != null
                && status.getObservedGeneration() >= d.getMetadata().getGeneration()
                && Integer.valueOf(replicas).equals(status.getUpdatedReplicas())
                && Integer.valueOf(replicas).equals(status.getReplicas())
                && Integer.valueOf(replicas).equals(status.getAvailableReplicas());
    }

    @Test
    void aDeploymentRunsItsPodsThroughAReplicaSetAndARollingUpdateReplacesThem() {
        try (ControllerCluster cluster = new ControllerCluster()) {
            String ns = cluster.namespace();
            try {
                cluster.admin.apps().deployments().inNamespace(ns).list();
            } catch (KubernetesClientException e) {
                Assumptions.assumeTrue(e.getCode() != 404, "the API server does not serve apps/v1 Deployments yet");
                throw e;
            }
            try (var manager = KubeControllerManager.builder(cluster.controllers).timing(Timing.FAST)
                    .featureGates(FeatureGates.defaults(FeatureGates.NEWEST_VERSION)).build().start()) {
                var deployments = cluster.admin.apps().deployments().inNamespace(ns);
                deployments.resource(new DeploymentBuilder().withNewMetadata().withName("web").endMetadata()
                        .withNewSpec().withReplicas(3).withNewSelector().addToMatchLabels("app", "web").endSelector()
                        .withNewTemplate().withNewMetadata().addToLabels("app", "web").endMetadata()
                        .withNewSpec().addNewContainer().withName("c").withImage("busybox:1").endContainer().endSpec()
                        .endTemplate().endSpec().build()).create();

                await().atMost(WAIT).until(() -> activePods(cluster, ns).size() == 3);
                makeReady(cluster, ns);
                Deployment first = await().atMost(WAIT).until(() -> deployments.withName("web").get(),
                        DeploymentControllerTest::rolledOut);
                assertThat(first.getMetadata().getAnnotations()).containsEntry(DeploymentController.REVISION, "1");
                assertThat(condition(first, "Available").getStatus()).isEqualTo("True");
                assertThat(condition(first, "Progressing").getReason()).isEqualTo("NewReplicaSetAvailable");
                List<ReplicaSet> sets = cluster.admin.apps().replicaSets().inNamespace(ns).list().getItems();
                assertThat(sets).singleElement().satisfies(rs -> assertThat(rs.getMetadata().getName())
                        .isEqualTo("web-" + rs.getMetadata().getLabels().get(DeploymentController.HASH_LABEL)));

                deployments.withName("web").edit(d -> new DeploymentBuilder(d).editSpec().editTemplate()
                        .editSpec().editFirstContainer().withImage("busybox:2").endContainer().endSpec()
                        .endTemplate().endSpec().build());

                Deployment second = await().atMost(WAIT).until(() -> {
                    makeReady(cluster, ns);
                    return deployments.withName("web").get();
                }, d -> rolledOut(d) && "2".equals(d.getMetadata().getAnnotations().get(DeploymentController.REVISION)));
                assertThat(activePods(cluster, ns)).hasSize(3).allSatisfy(pod -> assertThat(
                        pod.getSpec().getContainers().get(0).getImage()).isEqualTo("busybox:2"));
                assertThat(second.getStatus().getUpdatedReplicas()).isEqualTo(3);
            }
        }
    }
}
