package io.kdra.cluster.scenarios;

import static io.kdra.cluster.scenarios.ScenarioCluster.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.kdra.cluster.EmbeddedCluster;
import io.kdra.cluster.RuntimeKind;
import io.kdra.testdriver.ExamplePlugin;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A Deployment whose pods each get a claim from a template, through the Deployment and ReplicaSet controllers, the
 * resourceclaim controller, the scheduler and the kubelets: it scales up with a claim allocated and prepared per pod,
 * and down with the surplus pods' claims unprepared and deleted.
 */
class WorkloadScenariosTest {

    @RegisterExtension
    static final ScenarioExtension scenarios = new ScenarioExtension(
            () -> ScenarioCluster.start(EmbeddedCluster.builder().nodes(2).runtime(RuntimeKind.NOOP)));
    private final ScenarioCluster cluster = scenarios.cluster();
    private final Scenario scenario = scenarios.newScenario();

    @Test
    void aDeploymentWithATemplateClaimScalesUpAndDown() {
        Scenario.PodAndTemplate inline = scenario.podInline();
        scenario.create(inline.template());
        Map<String, String> labels = Map.of("app", "tester");
        Deployment deployment = new DeploymentBuilder().withNewMetadata().withName("tester")
                .withNamespace(scenario.namespace()).endMetadata().withNewSpec().withReplicas(1)
                .withNewSelector().withMatchLabels(labels).endSelector().withNewTemplate().withNewMetadata()
                .withLabels(labels).endMetadata().withSpec(inline.pod().getSpec()).endTemplate().endSpec().build();
        deployment.getSpec().getTemplate().getSpec().setRestartPolicy("Always");
        scenario.create(deployment);
        awaitAvailable(1);

        cluster.admin().apps().deployments().inNamespace(scenario.namespace()).withName("tester").scale(3);

        awaitAvailable(3);
        List<Pod> pods = pods();
        assertThat(pods).hasSize(3).allSatisfy(pod -> assertThat(pod.getStatus().getPhase()).isEqualTo("Running"));
        List<ResourceClaim> claims = claims();
        assertThat(claims).hasSize(3).allSatisfy(claim -> {
            assertThat(claim.getStatus().getAllocation()).isNotNull();
            assertThat(claim.getStatus().getReservedFor()).singleElement();
        });
        assertThat(claims).extracting(claim -> claim.getStatus().getReservedFor().get(0).getUid())
                .containsExactlyInAnyOrderElementsOf(pods.stream().map(pod -> pod.getMetadata().getUid()).toList());
        assertThat(cluster.drivers().stream().mapToInt(driver -> driver.preparedClaims().size()).sum()).isEqualTo(3);

        cluster.admin().apps().deployments().inNamespace(scenario.namespace()).withName("tester").scale(1);

        awaitAvailable(1);
        await().atMost(WAIT).until(() -> pods().size() == 1 && claims().size() == 1);
        await().atMost(WAIT).until(() -> cluster.drivers().stream().map(ExamplePlugin::preparedClaims)
                .mapToInt(List::size).sum() == 1);
    }

    @Test
    void aRollingUpdateReplacesEveryPodAndItsClaim() {
        Scenario.PodAndTemplate inline = scenario.podInline();
        scenario.create(inline.template());
        Map<String, String> labels = Map.of("app", "tester");
        Deployment deployment = new DeploymentBuilder().withNewMetadata().withName("tester")
                .withNamespace(scenario.namespace()).endMetadata().withNewSpec().withReplicas(3)
                .withNewSelector().withMatchLabels(labels).endSelector().withNewTemplate().withNewMetadata()
                .withLabels(labels).endMetadata().withSpec(inline.pod().getSpec()).endTemplate().endSpec().build();
        deployment.getSpec().getTemplate().getSpec().setRestartPolicy("Always");
        scenario.create(deployment);
        awaitAvailable(3);
        List<String> oldClaims = claims().stream().map(claim -> claim.getMetadata().getUid()).toList();

        cluster.admin().apps().deployments().inNamespace(scenario.namespace()).withName("tester").edit(d -> {
            d.getSpec().getTemplate().getSpec().getContainers().get(0).setEnv(
                    List.of(new io.fabric8.kubernetes.api.model.EnvVar("VERSION", "2", null)));
            return d;
        });

        await().atMost(WAIT).until(() -> {
            Deployment current = cluster.admin().apps().deployments().inNamespace(scenario.namespace())
                    .withName("tester").get();
            return current.getStatus() != null && Integer.valueOf(3).equals(current.getStatus().getUpdatedReplicas())
                    && Integer.valueOf(3).equals(current.getStatus().getAvailableReplicas())
                    && Integer.valueOf(3).equals(current.getStatus().getReplicas());
        });
        await().atMost(WAIT).until(() -> pods().size() == 3 && claims().size() == 3);
        assertThat(pods()).allSatisfy(pod -> assertThat(pod.getSpec().getContainers().get(0).getEnv())
                .extracting(env -> env.getName() + "=" + env.getValue()).containsExactly("VERSION=2"));
        assertThat(claims()).extracting(claim -> claim.getMetadata().getUid()).doesNotContainAnyElementsOf(oldClaims);
        await().atMost(WAIT).until(() -> cluster.drivers().stream().map(ExamplePlugin::preparedClaims)
                .mapToInt(List::size).sum() == 3);
    }

    private void awaitAvailable(int replicas) {
        await().atMost(WAIT).until(() -> {
            Deployment current = cluster.admin().apps().deployments().inNamespace(scenario.namespace())
                    .withName("tester").get();
            return current.getStatus() != null && Integer.valueOf(replicas).equals(current.getStatus()
                    .getAvailableReplicas()) && Integer.valueOf(replicas).equals(current.getStatus().getReplicas());
        });
    }

    private List<Pod> pods() {
        return cluster.admin().pods().inNamespace(scenario.namespace()).list().getItems().stream()
                .filter(pod -> pod.getMetadata().getDeletionTimestamp() == null).toList();
    }

    private List<ResourceClaim> claims() {
        return cluster.admin().resources(ResourceClaim.class).inNamespace(scenario.namespace()).list().getItems();
    }
}
