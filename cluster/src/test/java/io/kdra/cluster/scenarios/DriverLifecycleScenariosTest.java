package io.kdra.cluster.scenarios;

import static io.kdra.cluster.scenarios.ScenarioCluster.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.kdra.cluster.ClusterNode;
import io.kdra.cluster.EmbeddedCluster;
import io.kdra.cluster.RuntimeKind;
import io.kdra.cluster.Timing;
import io.kdra.testdriver.CallMatcher;
import io.kdra.testdriver.ExamplePlugin;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Kubelets and drivers that stop and come back, through the whole cluster: a kubelet restart wipes the node's slices
 * (the driver publishes them again) and keeps serving prepared claims; claims of a pod force-deleted while the kubelet
 * was down are unprepared by its reconcile loop; a stopped driver's slices go after the wiping delay, and a driver back
 * within the delay keeps them. The shared cluster has a wiping delay of 5 minutes, so that nothing a test must see
 * kept is wiped on a slow machine; the spec that waits for the wipe runs its own cluster with the fast delay.
 */
class DriverLifecycleScenariosTest {

    @RegisterExtension
    static final ScenarioExtension scenarios = new ScenarioExtension(
            () -> ScenarioCluster.start(EmbeddedCluster.builder().nodes(1)
                    .timing(Timing.FAST.withSliceWipingDelay(Duration.ofMinutes(5)))));
    private final ScenarioCluster cluster = scenarios.cluster();
    private final ClusterNode node = cluster.cluster().nodes().get(0);
    private final Scenario scenario = scenarios.newScenario();

    private ExamplePlugin driver() {
        return cluster.driver(node.name());
    }

    @Test
    void aRestartedKubeletWipesTheSlicesWhichTheDriverPublishesAgainAndKeepsServingPreparedClaims() throws Exception {
        scenario.create(scenario.externalClaim());
        Pod first = scenario.podExternal();
        scenario.create(first);
        scenario.testPod(first);
        Set<String> before = cluster.sliceUids(node.name());
        driver().resetGrpcCalls();

        node.restartKubelet();

        await().atMost(WAIT).until(() -> {
            Set<String> now = cluster.sliceUids(node.name());
            return !now.isEmpty() && now.stream().noneMatch(before::contains);
        });
        await().atMost(WAIT).until(driver()::grpcCalls, CallMatcher.beRegistered());
        Pod running = scenario.get(first);
        assertThat(running.getStatus().getPhase()).isEqualTo("Running");
        assertThat(running.getStatus().getContainerStatuses().get(0).getRestartCount()).isZero();
        scenario.testPod(first);

        // The checkpoint's claim is not prepared again until a pod needs it: the second pod makes the kubelet call
        // the driver, which answers from what it prepared before.
        Pod second = scenario.podExternal();
        scenario.create(second);
        scenario.testPod(second, Scenario.USER_ENV, "claim_external_claim_my_request=true");
        assertThat(driver().grpcCalls()).matches(CallMatcher.nodePrepareResourcesSucceeded());
        assertThat(driver().preparedClaims()).hasSize(1);
    }

    @Test
    void aPodForceDeletedWhileTheKubeletWasDownIsUnpreparedByItsReconcileLoop() {
        Scenario.PodAndTemplate inline = scenario.podInline();
        scenario.create(inline.template(), inline.pod());
        scenario.awaitRunning(inline.pod());
        assertThat(driver().preparedClaims()).hasSize(1);

        node.stopKubelet();
        cluster.admin().pods().inNamespace(scenario.namespace()).withName(inline.pod().getMetadata().getName())
                .withGracePeriod(0).delete();
        await().atMost(WAIT).until(() -> scenario.get(inline.pod()) == null);
        assertThat(driver().preparedClaims()).hasSize(1);
        node.startKubelet();

        await().atMost(WAIT).until(() -> driver().preparedClaims().isEmpty());
        // the driver forgets the claim before the call's answer is recorded in its history
        await().atMost(WAIT).until(driver()::grpcCalls, CallMatcher.nodeUnprepareResourcesSucceeded());
    }

    @Test
    void aPodCreatedWhileTheKubeletIsDownRunsOnceItIsBack() {
        // upstream node spec "must process pod created when kubelet is not running"
        node.stopKubelet();
        Scenario.PodAndTemplate inline = scenario.podInline();
        scenario.create(inline.template(), inline.pod());
        assertThat(scenario.get(inline.pod()).getStatus().getPhase()).isEqualTo("Pending");

        node.startKubelet();

        scenario.awaitRunning(inline.pod());
        assertThat(driver().grpcCalls()).matches(CallMatcher.nodePrepareResourcesSucceeded());
    }

    @Test
    void aPrepareInProgressWhenTheKubeletRestartsIsRetried() {
        // upstream node spec "must retry NodePrepareResources after Kubelet restart"
        Runnable unblock = driver().blockNodePrepareResources();
        try {
            Scenario.PodAndTemplate inline = scenario.podInline();
            scenario.create(inline.template(), inline.pod());
            await().atMost(WAIT).until(driver()::grpcCalls, CallMatcher.nodePrepareResourcesInProgress());

            node.restartKubelet();
            unblock.run();

            scenario.awaitRunning(inline.pod());
            assertThat(driver().grpcCalls()).matches(CallMatcher.nodePrepareResourcesSucceeded());
            // The stopped kubelet's call was cut off; like a killed kubelet, it reported nothing about that.
            assertThat(scenario.events(inline.pod(), "FailedPrepareDynamicResources"))
                    .extracting(event -> event.getMessage()).noneMatch(message -> message.contains("shutdownNow"));
        } finally {
            unblock.run();
        }
    }

    @Test
    void aPodDeletedWhileTheKubeletIsDownIsStoppedUnpreparedAndRemovedOnceItIsBack() {
        // upstream node spec "must call NodeUnprepareResources for deleted pod after Kubelet restart"
        Scenario.PodAndTemplate inline = scenario.podInline();
        scenario.create(inline.template(), inline.pod());
        scenario.awaitRunning(inline.pod());

        node.stopKubelet();
        cluster.admin().pods().inNamespace(scenario.namespace()).withName(inline.pod().getMetadata().getName())
                .delete();
        await().atMost(WAIT).until(() -> scenario.get(inline.pod()).getMetadata().getDeletionTimestamp() != null);
        assertThat(driver().preparedClaims()).hasSize(1);

        node.startKubelet();

        await().atMost(WAIT).until(() -> scenario.get(inline.pod()) == null);
        await().atMost(WAIT).until(() -> driver().preparedClaims().isEmpty());
        assertThat(driver().grpcCalls()).matches(CallMatcher.nodeUnprepareResourcesSucceeded());
    }

    @Test
    void aDriverBackWithinTheWipingDelayKeepsItsSlicesAndServesThePodThatWaitedForIt() {
        Set<String> before = cluster.sliceUids(node.name());
        cluster.stopDriver(node.name());

        // The slices are still there, so the pod is scheduled; the kubelet cannot prepare it without the driver.
        Scenario.PodAndTemplate inline = scenario.podInline();
        scenario.create(inline.template(), inline.pod());
        await().atMost(WAIT).until(() -> scenario.events(inline.pod(), "FailedPrepareDynamicResources").stream()
                .anyMatch(event -> event.getMessage().equals("Failed to prepare dynamic resources: prepare dynamic "
                        + "resources: DRA driver " + ScenarioCluster.DRIVER + " is not registered")));
        assertThat(scenario.get(inline.pod()).getStatus().getPhase()).isEqualTo("Pending");

        ExamplePlugin again = cluster.startDriver(node.name());
        scenario.awaitRunning(inline.pod());
        assertThat(again.grpcCalls()).matches(CallMatcher.nodePrepareResourcesSucceeded());
        assertThat(cluster.sliceUids(node.name())).isEqualTo(before);
    }

    @Test
    void aStoppedDriversSlicesAreWipedAfterTheDelay() {
        try (ScenarioCluster fast = ScenarioCluster.start(EmbeddedCluster.builder().nodes(1)
                .runtime(RuntimeKind.NOOP).timing(Timing.FAST))) {
            String nodeName = fast.nodeNames().get(0);
            fast.awaitDriversReady();

            fast.stopDriver(nodeName);

            await().atMost(WAIT).until(() -> fast.slices(nodeName, ScenarioCluster.DRIVER).isEmpty());
            fast.startDriver(nodeName);
            fast.awaitDriversReady();
            Scenario.PodAndTemplate inline = fast.scenario().podInline();
            fast.admin().resource(inline.template()).create();
            Pod pod = fast.admin().resource(new PodBuilder(inline.pod()).editSpec()
                    .withNodeSelector(Map.of("kubernetes.io/hostname", nodeName)).endSpec().build()).create();
            await().atMost(WAIT).until(() -> "Running".equals(fast.pod(pod.getMetadata().getNamespace(),
                    pod.getMetadata().getName()).getStatus().getPhase()));
        }
    }
}
