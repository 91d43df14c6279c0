package io.kdra.cluster.scenarios;

import static io.kdra.cluster.scenarios.ScenarioCluster.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.kdra.cluster.EmbeddedCluster;
import io.kdra.cluster.RuntimeKind;
import io.kdra.plugin.KubeletPlugin;
import io.kdra.testdriver.CallMatcher;
import io.kdra.testdriver.DriverDevices;
import io.kdra.testdriver.ExamplePlugin;
import io.kdra.testdriver.GrpcCall;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Each kubelet version's choice of the DRA gRPC service, seen by the driver a pod's claim is prepared and unprepared
 * through: 1.31 always v1alpha4 ({@code v1alpha3.Node}), 1.32–1.33 v1beta1 if served else v1alpha4, 1.34 the
 * plugin's first of v1 and v1beta1, and a 1.34 kubelet refuses a plugin serving only v1alpha4. One cluster per
 * kubelet version; on each node the driver serves another set of services.
 */
class KubeletVersionScenariosTest {

    private static final String V1 = "/k8s.io.kubelet.pkg.apis.dra.v1.DRAPlugin/";
    private static final String V1BETA1 = "/k8s.io.kubelet.pkg.apis.dra.v1beta1.DRAPlugin/";
    private static final String V1ALPHA4 = "/v1alpha3.Node/";

    /** What the driver on a node serves. */
    private record Served(boolean v1, boolean v1beta1, boolean v1alpha4) implements Consumer<KubeletPlugin.Builder> {
        static final Served ALL = new Served(true, true, true);
        static final Served DEFAULT = new Served(true, true, false);
        static final Served V1BETA1_ONLY = new Served(false, true, false);
        static final Served V1ALPHA4_ONLY = new Served(false, false, true);

        @Override
        public void accept(KubeletPlugin.Builder plugin) {
            plugin.nodeV1(v1).nodeV1beta1(v1beta1).nodeV1alpha4(v1alpha4);
        }
    }

    @Test
    void kubelet131CallsV1alpha4() throws Exception {
        try (ScenarioCluster cluster = start("1.31", List.of(Served.ALL))) {
            assertPodIsServedThrough(cluster, "node-1", V1ALPHA4);
        }
    }

    @Test
    void kubelet133CallsV1beta1IfServedElseV1alpha4() throws Exception {
        try (ScenarioCluster cluster = start("1.33", List.of(Served.DEFAULT, Served.V1ALPHA4_ONLY))) {
            assertPodIsServedThrough(cluster, "node-1", V1BETA1);
            assertPodIsServedThrough(cluster, "node-2", V1ALPHA4);
        }
    }

    @Test
    void kubelet134CallsThePluginsFirstOfV1AndV1beta1AndRefusesV1alpha4() throws Exception {
        try (ScenarioCluster cluster = start("1.34",
                List.of(Served.DEFAULT, Served.V1BETA1_ONLY, Served.V1ALPHA4_ONLY))) {
            assertPodIsServedThrough(cluster, "node-1", V1);
            assertPodIsServedThrough(cluster, "node-2", V1BETA1);

            ExamplePlugin refused = cluster.driver("node-3");
            await().atMost(WAIT).until(() -> refused.kubeletPlugin().registrationStatus().isPresent());
            assertThat(refused.isRegistered()).isFalse();
            assertThat(refused.kubeletPlugin().registrationStatus().get().error()).endsWith(
                    ": none of services supported by the plugin ([\"v1alpha3.NodeService\"]) are supported by the "
                            + "kubelet ([\"v1.DRAPlugin\" \"v1beta1.DRAPlugin\"])");
            // The slices the driver published let the scheduler allocate; the kubelet cannot prepare.
            await().atMost(WAIT).until(() -> !cluster.slices("node-3", ScenarioCluster.DRIVER).isEmpty());
            Scenario scenario = cluster.scenario();
            Pod pod = createPinnedPod(scenario, "node-3");
            await().atMost(WAIT).until(() -> scenario.events(pod, "FailedPrepareDynamicResources").stream()
                    .anyMatch(event -> event.getMessage().endsWith("DRA driver " + ScenarioCluster.DRIVER
                            + " is not registered")));
            assertThat(refused.countCalls(CallMatcher.NODE_PREPARE_RESOURCES)).isZero();
        }
    }

    /** A pod with a template claim on the node runs, prepared and (after deletion) unprepared through the service. */
    private static void assertPodIsServedThrough(ScenarioCluster cluster, String node, String service)
            throws Exception {
        ExamplePlugin driver = cluster.driver(node);
        await().atMost(WAIT).until(driver::isRegistered);
        await().atMost(WAIT).until(() -> !cluster.slices(node, ScenarioCluster.DRIVER).isEmpty());
        Scenario scenario = cluster.scenario();
        Pod pod = createPinnedPod(scenario, node);

        scenario.awaitRunning(pod);
        assertThat(methods(driver, CallMatcher.NODE_PREPARE_RESOURCES)).as("prepare calls on %s", node)
                .containsOnly(service + "NodePrepareResources");

        scenario.tearDown();
        assertThat(methods(driver, CallMatcher.NODE_UNPREPARE_RESOURCES)).as("unprepare calls on %s", node)
                .containsOnly(service + "NodeUnprepareResources");
    }

    private static Pod createPinnedPod(Scenario scenario, String node) {
        Scenario.PodAndTemplate inline = scenario.podInline();
        Pod pod = new PodBuilder(inline.pod()).editSpec().withNodeSelector(Map.of("kubernetes.io/hostname", node))
                .endSpec().build();
        scenario.create(inline.template(), pod);
        return pod;
    }

    /** A cluster of the kubelet version with a node per entry, whose driver serves what the entry says. */
    private static ScenarioCluster start(String kubeletVersion, List<Served> served) {
        return ScenarioCluster.start(EmbeddedCluster.builder().nodes(served.size()).kubeletVersion(kubeletVersion)
                        .runtime(RuntimeKind.NOOP), node -> DriverDevices.numbered(1),
                (node, plugin) -> served.get(Integer.parseInt(node.substring("node-".length())) - 1).accept(plugin));
    }

    private static List<String> methods(ExamplePlugin driver, String suffix) {
        return driver.grpcCalls().stream().filter(call -> call.isMethod(suffix)).map(GrpcCall::fullMethod).toList();
    }
}
