package io.kdra.cluster.scenarios;

import static io.kdra.cluster.scenarios.ScenarioCluster.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimSpec;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimSpecBuilder;
import io.fabric8.kubernetes.api.model.resource.v1beta2.DeviceTaintRule;
import io.fabric8.kubernetes.api.model.resource.v1beta2.DeviceTaintRuleBuilder;
import io.kdra.cluster.EmbeddedCluster;
import io.kdra.cluster.RuntimeKind;
import io.kdra.plugin.resourceslice.DriverResources;
import io.kdra.plugin.resourceslice.Pool;
import io.kdra.testdriver.DriverDevices;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Device taints through the whole cluster, as upstream's "[FeatureGate:DRADeviceTaints]" specs: a DeviceTaintRule
 * with effect NoExecute evicts the pod using the device; a NoExecute taint the driver publishes evicts the running pod,
 * keeps new pods pending and can be tolerated. Kubernetes 1.36 with DRADeviceTaintRules on (DRADeviceTaints is beta
 * and on there).
 */
class EvictionScenariosTest {

    private static final String DONT_DELETE = "e2e-test/dont-delete-me";

    @RegisterExtension
    static final ScenarioExtension scenarios = new ScenarioExtension(
            () -> ScenarioCluster.start(EmbeddedCluster.builder().nodes(1).runtime(RuntimeKind.NOOP)
                    .kubernetesVersion("1.36").featureGates("DRADeviceTaintRules=true")));
    private final ScenarioCluster cluster = scenarios.cluster();
    private final String node = cluster.nodeNames().get(0);
    private final Scenario scenario = scenarios.newScenario();

    private Pod runningPodWithFinalizer(ResourceClaimSpec spec) {
        Scenario.PodAndTemplate inline = scenario.podInline(spec, 1);
        Pod pod = new PodBuilder(inline.pod()).editMetadata().addToFinalizers(DONT_DELETE).endMetadata().build();
        scenario.create(inline.template(), pod);
        scenario.awaitRunning(pod);
        return pod;
    }

    private DeviceRequestAllocationResult allocatedDevice(Pod pod) {
        return scenario.claim(scenario.generatedClaimName(pod)).getStatus().getAllocation().getDevices()
                .getResults().get(0);
    }

    /** Waits until the pod is being deleted and checks the condition upstream's spec checks. */
    private void assertEvicted(Pod pod) {
        await().atMost(WAIT).until(() -> scenario.get(pod).getMetadata().getDeletionTimestamp() != null);
        PodCondition condition = scenario.get(pod).getStatus().getConditions().stream()
                .filter(c -> "DisruptionTarget".equals(c.getType())).findFirst().orElseThrow();
        assertThat(condition.getStatus()).isEqualTo("True");
        assertThat(condition.getReason()).isEqualTo("DeletionByDeviceTaintManager");
        assertThat(condition.getMessage()).isEqualTo("Device Taint manager: deleting due to NoExecute taint");
        await().atMost(WAIT).until(() -> scenario.events(pod, "DeviceTaintManagerEviction").stream()
                .anyMatch(event -> "Marking for deletion".equals(event.getMessage())));
    }

    @Test
    void aDeviceTaintRuleWithNoExecuteEvictsThePodUsingTheDevice() {
        Pod pod = runningPodWithFinalizer(scenario.claimSpec());
        DeviceRequestAllocationResult device = allocatedDevice(pod);

        DeviceTaintRule rule = cluster.admin().resources(DeviceTaintRule.class).resource(new DeviceTaintRuleBuilder()
                .withNewMetadata().withGenerateName("device-taint-rule-" + scenario.namespace() + "-").endMetadata()
                .withNewSpec().withNewDeviceSelector().withDriver(device.getDriver()).withPool(device.getPool())
                .withDevice(device.getDevice()).endDeviceSelector().withNewTaint().withKey("test.example.com/evict")
                .withValue("now").withEffect("NoExecute").endTaint().endSpec().build()).create();
        try {
            assertThat(rule.getSpec().getTaint().getTimeAdded()).as("timeAdded defaulted").isNotNull();
            assertEvicted(pod);
            await().atMost(WAIT).untilAsserted(() -> {
                DeviceTaintRule current = cluster.admin().resources(DeviceTaintRule.class)
                        .withName(rule.getMetadata().getName()).get();
                assertThat(current.getStatus().getConditions()).singleElement().satisfies(condition -> {
                    assertThat(condition.getType()).isEqualTo("EvictionInProgress");
                    assertThat(condition.getStatus()).isEqualTo("False");
                    assertThat(condition.getReason()).isEqualTo("Completed");
                    assertThat(condition.getMessage()).contains("1 pod evicted since starting the controller.");
                    assertThat(condition.getObservedGeneration()).isEqualTo(current.getMetadata().getGeneration());
                });
            });
        } finally {
            cluster.admin().resources(DeviceTaintRule.class).withName(rule.getMetadata().getName()).delete();
        }
    }

    @Test
    void aNoExecuteTaintTheDriverPublishesEvictsKeepsNewPodsPendingAndCanBeTolerated() {
        Pod victim = runningPodWithFinalizer(scenario.claimSpec());

        publish(DriverDevices.numbered(4).stream().map(device -> new DeviceBuilder(device).addNewTaint()
                .withKey("example.com/taint").withValue("tainted").withEffect("NoExecute").endTaint().build())
                .toList());
        try {
            assertEvicted(victim);

            Scenario.PodAndTemplate pending = scenario.podInline();
            scenario.create(pending.template(), pending.pod());
            assertThat(scenario.awaitUnschedulable(pending.pod())).contains("cannot allocate all claims");

            ResourceClaimSpec tolerating = new ResourceClaimSpecBuilder(scenario.claimSpec()).editDevices()
                    .editFirstRequest().editExactly().addNewToleration().withKey("example.com/taint")
                    .withOperator("Exists").withEffect("NoExecute").endToleration().endExactly().endRequest()
                    .endDevices().build();
            Scenario.PodAndTemplate tolerant = scenario.podInline(tolerating, 1);
            scenario.create(tolerant.template(), tolerant.pod());
            scenario.awaitRunning(tolerant.pod());
        } finally {
            publish(DriverDevices.numbered(4));
        }
    }

    private void publish(List<Device> devices) {
        cluster.driver(node).kubeletPlugin().publishResources(DriverResources.of(node, Pool.ofDevices(devices)));
    }
}
