package io.kdra.cluster.scenarios;

import static io.kdra.cluster.scenarios.ScenarioCluster.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.kdra.cluster.ClusterNode;
import io.kdra.cluster.EmbeddedCluster;
import io.kdra.cluster.RuntimeKind;
import io.kdra.kube.KubernetesVersion;
import io.kdra.testdriver.CallMatcher;
import io.kdra.testdriver.ExamplePlugin;
import io.kdra.testdriver.GrpcCall;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The cluster upgraded and downgraded in place, as upstream's upgrade/downgrade spec does with kind: a claim prepared
 * and a pod running before the switch survive it (same container, claim still allocated and reserved), the restarted
 * kubelet wipes the node's slices and the driver publishes them again, and the kubelet's choice of the DRA gRPC
 * service follows its version (1.33 v1beta1, 1.34 v1).
 */
class VersionSwitchScenariosTest {

    private static final String V1 = "/k8s.io.kubelet.pkg.apis.dra.v1.DRAPlugin/";
    private static final String V1BETA1 = "/k8s.io.kubelet.pkg.apis.dra.v1beta1.DRAPlugin/";

    @Test
    void aPreparedClaimAndARunningPodSurviveTheUpgradeAndTheDowngrade() throws Exception {
        try (ScenarioCluster cluster = ScenarioCluster.start(EmbeddedCluster.builder().nodes(1)
                .kubernetesVersion("1.33").featureGates("DynamicResourceAllocation=true"))) {
            ClusterNode node = cluster.cluster().nodes().get(0);
            cluster.awaitDriversReady();
            Scenario scenario = cluster.scenario();
            ResourceClaim claim = scenario.externalClaim();
            Pod before = scenario.podExternal();
            scenario.create(claim, before);
            scenario.testPod(before);
            String container = containerId(scenario, before);
            assertThat(methods(cluster.driver(node.name()), CallMatcher.NODE_PREPARE_RESOURCES))
                    .containsOnly(V1BETA1 + "NodePrepareResources");

            switchAndAwaitSlices(cluster, node, "1.34");

            assertThat(cluster.admin().getKubernetesVersion().getGitVersion()).isEqualTo("v1.34.0");
            assertThat(node.kubeletConfig().kubeletVersion()).isEqualTo(new KubernetesVersion(1, 34));
            assertThat(cluster.cluster().config().featureGates().version()).isEqualTo(new KubernetesVersion(1, 34));
            assertSurvived(scenario, before, container, claim.getMetadata().getName());
            ResourceClaim upgraded = scenario.externalClaim();
            Pod after = scenario.podExternal(upgraded.getMetadata().getName(), 1);
            cluster.driver(node.name()).resetGrpcCalls();
            scenario.create(upgraded, after);
            scenario.testPod(after);
            assertThat(methods(cluster.driver(node.name()), CallMatcher.NODE_PREPARE_RESOURCES))
                    .as("a 1.34 kubelet calls v1").containsOnly(V1 + "NodePrepareResources");

            switchAndAwaitSlices(cluster, node, "1.33");

            assertThat(cluster.admin().getKubernetesVersion().getGitVersion()).isEqualTo("v1.33.0");
            assertSurvived(scenario, before, container, claim.getMetadata().getName());
            cluster.driver(node.name()).resetGrpcCalls();
            scenario.tearDown();
            assertThat(methods(cluster.driver(node.name()), CallMatcher.NODE_UNPREPARE_RESOURCES))
                    .as("the downgraded kubelet unprepares both claims through v1beta1")
                    .containsExactly(V1BETA1 + "NodeUnprepareResources", V1BETA1 + "NodeUnprepareResources");
        }
    }

    @Test
    void gatesThatDoNotExistAtTheTargetVersionAreRefusedBeforeAnythingStops() {
        try (EmbeddedCluster cluster = EmbeddedCluster.builder().nodes(1).kubernetesVersion("1.34")
                .featureGates("DRAConsumableCapacity=true").runtime(RuntimeKind.NOOP).start()) {
            assertThatThrownBy(() -> cluster.switchVersion("1.33")).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("cannot set feature gate DRAConsumableCapacity to true");
            assertThat(cluster.node("node-1").isKubeletRunning()).isTrue();
            assertThat(cluster.adminClient().getKubernetesVersion().getGitVersion()).isEqualTo("v1.34.0");
        }
    }

    /** Switches the version and waits until the node's slices are new ones: wiped by the restarted kubelet. */
    private static void switchAndAwaitSlices(ScenarioCluster cluster, ClusterNode node, String version) {
        Set<String> before = cluster.sliceUids(node.name());
        assertThat(before).isNotEmpty();
        cluster.cluster().switchVersion(version);
        assertThat(node.isKubeletRunning()).isTrue();
        await().atMost(WAIT).until(() -> {
            Set<String> now = cluster.sliceUids(node.name());
            return !now.isEmpty() && now.stream().noneMatch(before::contains);
        });
        await().atMost(WAIT).until(cluster.driver(node.name())::isRegistered);
    }

    private static void assertSurvived(Scenario scenario, Pod pod, String containerId, String claimName) {
        Pod current = scenario.get(pod);
        assertThat(current.getStatus().getPhase()).isEqualTo("Running");
        assertThat(containerId(scenario, pod)).as("the same container runs").isEqualTo(containerId);
        assertThat(current.getStatus().getContainerStatuses()).allSatisfy(status ->
                assertThat(status.getRestartCount()).isZero());
        ResourceClaim claim = scenario.claim(claimName);
        assertThat(claim.getStatus().getAllocation()).isNotNull();
        assertThat(claim.getStatus().getReservedFor()).extracting(reference -> reference.getUid())
                .containsExactly(current.getMetadata().getUid());
    }

    private static String containerId(Scenario scenario, Pod pod) {
        return scenario.get(pod).getStatus().getContainerStatuses().stream().map(ContainerStatus::getContainerID)
                .findFirst().orElseThrow();
    }

    private static List<String> methods(ExamplePlugin driver, String suffix) {
        return driver.grpcCalls().stream().filter(call -> call.isMethod(suffix)).map(GrpcCall::fullMethod).toList();
    }
}
