package io.kdra.cluster.scenarios;

import static io.kdra.cluster.scenarios.ScenarioCluster.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttribute;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttributeBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.kdra.cluster.EmbeddedCluster;
import io.kdra.cluster.RuntimeKind;
import io.kdra.testdriver.DriverDevices;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Scheduling through the whole cluster, as upstream's "control plane" and "multiple nodes" specs: pods that cannot be
 * scheduled yet wait for the DeviceClass, the class update or the driver that makes them schedulable; a CEL runtime
 * error keeps a pod pending with the error in its condition; node-local devices spread pods over the nodes.
 */
class SchedulingScenariosTest {

    @RegisterExtension
    static final ScenarioExtension scenarios = new ScenarioExtension(
            () -> ScenarioCluster.start(EmbeddedCluster.builder().nodes(2).runtime(RuntimeKind.NOOP)));
    private final ScenarioCluster cluster = scenarios.cluster();
    private final Scenario scenario = scenarios.newScenario();

    @Test
    void aPodWaitsForItsDeviceClassAndIsScheduledOnceItExists() {
        String missing = scenario.className() + "-b";
        Scenario.PodAndTemplate inline = scenario.podInline(scenario.claimSpec(missing), 1);
        scenario.create(inline.template(), inline.pod());

        assertThat(scenario.awaitUnschedulable(inline.pod()))
                .contains("device class " + missing + " does not exist");
        assertThat(scenario.scheduledCondition(inline.pod()).getReason()).isEqualTo("Unschedulable");
        assertThat(scenario.events(inline.pod(), "FailedScheduling")).isNotEmpty()
                .allSatisfy(event -> assertThat(event.getType()).isEqualTo("Warning"));

        scenario.create(Scenario.deviceClass(missing, "device.driver == \"" + ScenarioCluster.DRIVER + "\""));
        scenario.awaitRunning(inline.pod());
        cluster.admin().resources(DeviceClass.class).withName(missing).delete();
    }

    @Test
    void aPodIsScheduledOnceItsDeviceClassSelectsDevicesAgain() {
        DeviceClass deviceClass = cluster.admin().resources(DeviceClass.class).withName(scenario.className()).get();
        String selector = deviceClass.getSpec().getSelectors().get(0).getCel().getExpression();
        setSelector("false");
        Scenario.PodAndTemplate inline = scenario.podInline();
        scenario.create(inline.template(), inline.pod());

        assertThat(scenario.awaitUnschedulable(inline.pod())).contains("cannot allocate all claims");

        setSelector(selector);
        scenario.awaitRunning(inline.pod());
    }

    private void setSelector(String expression) {
        cluster.admin().resources(DeviceClass.class).withName(scenario.className())
                .edit(c -> {
                    c.getSpec().getSelectors().get(0).getCel().setExpression(expression);
                    return c;
                });
    }

    @Test
    void aPodWaitsForItsDriverAndRunsOnceItStarts() {
        String lateDriver = "late.k8s.io";
        String className = scenario.className() + "-late";
        scenario.create(Scenario.deviceClass(className, "device.driver == \"" + lateDriver + "\""));
        Scenario.PodAndTemplate inline = scenario.podInline(scenario.claimSpec(className), 1);
        scenario.create(inline.template(), inline.pod());

        assertThat(scenario.awaitUnschedulable(inline.pod())).contains("cannot allocate all claims");

        String node = cluster.nodeNames().get(0);
        cluster.startExtraDriver(node, lateDriver, DriverDevices.numbered(1));
        scenario.awaitRunning(inline.pod());
        assertThat(scenario.get(inline.pod()).getSpec().getNodeName()).isEqualTo(node);
        cluster.admin().resources(DeviceClass.class).withName(className).delete();
    }

    @Test
    void aCelRuntimeErrorOnAnyNodeKeepsThePodPendingWithTheErrorInItsCondition() {
        // upstream's "with different ResourceSlices keeps pod pending because of CEL runtime errors"
        String celDriver = "cel.k8s.io";
        String first = cluster.nodeNames().get(0);
        String second = cluster.nodeNames().get(1);
        cluster.startExtraDriver(first, celDriver, List.of(new DeviceBuilder().withName("pre-defined-device-02")
                .withAttributes(Map.of("healthy", bool(false))).build()));
        cluster.startExtraDriver(second, celDriver, List.of(new DeviceBuilder().withName("pre-defined-device-01")
                .withAttributes(Map.of("healthy", bool(true), "exists", bool(true))).build()));
        String className = scenario.className() + "-cel";
        scenario.create(Scenario.deviceClass(className, "device.attributes[\"" + celDriver + "\"].exists"));
        await().atMost(WAIT).until(() -> !cluster.slices(first, celDriver).isEmpty()
                && !cluster.slices(second, celDriver).isEmpty());
        // A pod pinned to the first node leaves the scheduler's next search starting at the second node, where the
        // selector evaluates without error: the error on the first node must still keep the pod off every node.
        Pod pinned = new PodBuilder(scenario.pod()).editSpec().withNodeSelector(Map.of("kubernetes.io/hostname",
                first)).endSpec().build();
        scenario.create(pinned);
        await().atMost(WAIT).until(() -> scenario.get(pinned).getSpec().getNodeName() != null);

        Scenario.PodAndTemplate inline = scenario.podInline(scenario.claimSpec(className), 1);
        scenario.create(inline.template(), inline.pod());

        await().atMost(WAIT).until(() -> {
            assertThat(scenario.get(inline.pod()).getSpec().getNodeName()).as("node of the pod").isNull();
            PodCondition condition = scenario.scheduledCondition(inline.pod());
            return condition != null && condition.getMessage() != null
                    && condition.getMessage().contains("CEL runtime error");
        });
        PodCondition condition = scenario.scheduledCondition(inline.pod());
        assertThat(condition.getStatus()).isEqualTo("False");
        assertThat(condition.getMessage()).startsWith("running \"DynamicResources\" filter plugin: ")
                .contains("pre-defined-device-02");
        assertThat(scenario.get(inline.pod()).getSpec().getNodeName()).isNull();
        cluster.admin().resources(DeviceClass.class).withName(className).delete();
    }

    private static DeviceAttribute bool(boolean value) {
        return new DeviceAttributeBuilder().withBool(value).build();
    }

    @Test
    void podsUsingNodeLocalDevicesUseEveryNode() {
        // upstream's "with node-local resources uses all resources": one device per node, one pod per node
        String oneDriver = "one.k8s.io";
        for (String node : cluster.nodeNames()) {
            cluster.startExtraDriver(node, oneDriver, DriverDevices.numbered(1));
        }
        String className = scenario.className() + "-one";
        scenario.create(Scenario.deviceClass(className, "device.driver == \"" + oneDriver + "\""));
        List<Pod> pods = new ArrayList<>();
        for (int i = 0; i < cluster.nodeNames().size(); i++) {
            Scenario.PodAndTemplate inline = scenario.podInline(scenario.claimSpec(className), 1);
            scenario.create(inline.template(), inline.pod());
            pods.add(inline.pod());
        }

        pods.forEach(scenario::awaitRunning);
        assertThat(pods).extracting(pod -> scenario.get(pod).getSpec().getNodeName())
                .containsExactlyInAnyOrderElementsOf(cluster.nodeNames());
        cluster.admin().resources(DeviceClass.class).withName(className).delete();
    }

    @Test
    void podsWaitingForTheOnlyDeviceRunOneAfterTheOther() {
        // upstream's "supports reusing resources", with the pods queued at once: each deleted pod's claim frees the
        // device for the next
        String oneDriver = "single.k8s.io";
        String node = cluster.nodeNames().get(0);
        cluster.startExtraDriver(node, oneDriver, DriverDevices.numbered(1));
        String className = scenario.className() + "-single";
        scenario.create(Scenario.deviceClass(className, "device.driver == \"" + oneDriver + "\""));
        List<Pod> pods = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Scenario.PodAndTemplate inline = scenario.podInline(scenario.claimSpec(className), 1);
            scenario.create(inline.template(), inline.pod());
            pods.add(inline.pod());
        }

        List<String> order = new ArrayList<>();
        for (int i = 0; i < pods.size(); i++) {
            await().atMost(WAIT).until(() -> pods.stream().filter(pod -> !order.contains(name(pod)))
                    .anyMatch(scenario::isRunning));
            Pod running = pods.stream().filter(pod -> !order.contains(name(pod))).filter(scenario::isRunning)
                    .findFirst().orElseThrow();
            assertThat(pods.stream().filter(pod -> !order.contains(name(pod)) && pod != running)
                    .map(scenario::get).map(pod -> pod.getSpec().getNodeName()).toList())
                    .as("the pods still waiting are not scheduled").allMatch(Objects::isNull);
            order.add(name(running));
            cluster.admin().resource(scenario.get(running)).delete();
            await().atMost(WAIT).until(() -> scenario.get(running) == null);
        }
        assertThat(order).containsExactlyInAnyOrder("tester-1", "tester-2", "tester-3");
        cluster.admin().resources(DeviceClass.class).withName(className).delete();
    }

    private static String name(Pod pod) {
        return pod.getMetadata().getName();
    }
}
