package io.kdra.cluster.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceTaint;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceTaintBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceTaintRule;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceToleration;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceTolerationBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceBuilder;
import io.kdra.cluster.Timing;
import io.kdra.kube.FeatureGates;
import io.kdra.kube.KubernetesVersion;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class DeviceTaintEvictionControllerTest {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final FeatureGates GATES = FeatureGates.defaults(KubernetesVersion.parse("1.36"))
            .with(FeatureGates.DRA_DEVICE_TAINT_RULES, true);

    private static ControllerCluster cluster;
    private DeviceTaintEvictionController controller;
    private String ns;
    private String driver;

    @BeforeAll
    static void startServer() {
        cluster = new ControllerCluster(GATES);
    }

    @AfterAll
    static void stopServer() {
        cluster.close();
    }

    @BeforeEach
    void startController() {
        controller = new DeviceTaintEvictionController(cluster.controllers, GATES,
                Timing.FAST.withDeviceTaintRuleStatusPeriod(Duration.ofMillis(500))).start();
        ns = cluster.namespace();
        // every test has a driver of its own, so that rules and slices of other tests select nothing here
        driver = ns + ".example.com";
    }

    @AfterEach
    void stopController() {
        controller.close();
    }

    private ResourceSlice slice(List<DeviceTaint> taintsOfDevice0) {
        return cluster.admin.resources(ResourceSlice.class).resource(new ResourceSliceBuilder()
                .withNewMetadata().withName(ns + "-node-1").endMetadata()
                .withNewSpec().withDriver(driver).withNodeName("node-1")
                .withNewPool().withName("node-1").withGeneration(1L).withResourceSliceCount(1L).endPool()
                .addNewDevice().withName("device-00").withTaints(taintsOfDevice0).endDevice()
                .addNewDevice().withName("device-01").endDevice()
                .endSpec().build()).create();
    }

    private void taintDevice0(DeviceTaint taint) {
        var slices = cluster.admin.resources(ResourceSlice.class);
        ResourceSlice slice = slices.withName(ns + "-node-1").get();
        slice.getSpec().getDevices().get(0).setTaints(List.of(taint));
        slices.resource(slice).update();
    }

    /** A running pod on node-1 with claim {@code c-<pod>} allocated to the device, tolerating as given. */
    private Pod runningPod(String name, String device, List<DeviceToleration> tolerations) {
        Fixtures.claim(cluster.admin, ns, "c-" + name);
        Pod pod = Fixtures.pod(cluster.admin, ns, name, null, "c-" + name, null);
        allocate("c-" + name, pod, device, tolerations);
        cluster.bind(ns, name, "node-1");
        return cluster.setPhase(ns, name, "Running");
    }

    private void allocate(String claim, Pod pod, String device, List<DeviceToleration> tolerations) {
        var claims = cluster.admin.resources(io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim.class)
                .inNamespace(ns);
        var current = claims.withName(claim).get();
        claims.resource(new io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder(current)
                .withNewStatus().withNewAllocation().withNewDevices().addNewResult().withRequest("dev")
                .withDriver(driver).withPool("node-1").withDevice(device).withTolerations(tolerations).endResult()
                .endDevices().endAllocation().addNewReservedFor().withResource("pods")
                .withName(pod.getMetadata().getName()).withUid(pod.getMetadata().getUid()).endReservedFor()
                .endStatus().build()).updateStatus();
    }

    private Optional<Pod> podSeenByController(String name) {
        return Optional.ofNullable(controller.informers.informer(Pod.class).getStore().getByKey(ns + "/" + name));
    }

    private Pod pod(String name) {
        return cluster.admin.pods().inNamespace(ns).withName(name).get();
    }

    private static PodCondition disruptionTarget(Pod pod) {
        return pod.getStatus().getConditions().stream().filter(c -> "DisruptionTarget".equals(c.getType()))
                .findFirst().orElse(null);
    }

    private Pod awaitEvicted(String name) {
        return await().atMost(WAIT).until(() -> pod(name), pod -> pod.getMetadata().getDeletionTimestamp() != null);
    }

    private static void assertEvictionCondition(Pod pod) {
        PodCondition condition = disruptionTarget(pod);
        assertThat(condition).isNotNull();
        assertThat(condition.getStatus()).isEqualTo("True");
        assertThat(condition.getReason()).isEqualTo("DeletionByDeviceTaintManager");
        assertThat(condition.getMessage()).isEqualTo("Device Taint manager: deleting due to NoExecute taint");
    }

    private static DeviceTaint taint(String effect) {
        return new DeviceTaintBuilder().withKey("example.com/taint").withValue("tainted").withEffect(effect).build();
    }

    @Test
    void aNoExecuteTaintOnTheSliceEvictsThePodsUsingTheDeviceAndOnlyThem() {
        slice(List.of());
        runningPod("victim", "device-00", List.of());
        runningPod("bystander", "device-01", List.of());
        DeviceToleration forever = new DeviceTolerationBuilder().withKey("example.com/taint").withOperator("Exists")
                .withEffect("NoExecute").build();
        runningPod("tolerant", "device-00", List.of(forever));

        taintDevice0(taint("NoExecute"));

        assertEvictionCondition(awaitEvicted("victim"));
        await().atMost(WAIT).until(() -> cluster.admin.v1().events().inNamespace(ns).list().getItems().stream()
                .anyMatch(e -> "DeviceTaintManagerEviction".equals(e.getReason())
                        && "Marking for deletion".equals(e.getMessage())
                        && "victim".equals(e.getInvolvedObject().getName())
                        && DeviceTaintEvictionController.COMPONENT.equals(e.getSource().getComponent())));
        // the decisions about all three pods were taken in the same slice update
        assertThat(pod("tolerant").getMetadata().getDeletionTimestamp()).isNull();
        assertThat(pod("bystander").getMetadata().getDeletionTimestamp()).isNull();
        assertThat(disruptionTarget(pod("tolerant"))).isNull();
    }

    @Test
    void aNoScheduleTaintEvictsNobody() {
        slice(List.of(taint("NoSchedule")));
        runningPod("p", "device-00", List.of());
        // a barrier: a NoExecute taint on the other device, taken after the NoSchedule one was known
        runningPod("q", "device-01", List.of());
        var slices = cluster.admin.resources(ResourceSlice.class);
        ResourceSlice slice = slices.withName(ns + "-node-1").get();
        slice.getSpec().getDevices().get(1).setTaints(List.of(taint("NoExecute")));
        slices.resource(slice).update();

        awaitEvicted("q");
        assertThat(pod("p").getMetadata().getDeletionTimestamp()).isNull();
    }

    @Test
    void tolerationSecondsDelayTheEvictionFromTheTimeTheTaintWasAdded() {
        slice(List.of());
        DeviceToleration twoSeconds = new DeviceTolerationBuilder().withKey("example.com/taint")
                .withOperator("Exists").withEffect("NoExecute").withTolerationSeconds(2L).build();
        runningPod("p", "device-00", List.of(twoSeconds));

        taintDevice0(taint("NoExecute"));

        Pod evicted = awaitEvicted("p");
        assertEvictionCondition(evicted);
        String added = cluster.admin.resources(ResourceSlice.class).withName(ns + "-node-1").get().getSpec()
                .getDevices().get(0).getTaints().get(0).getTimeAdded();
        assertThat(added).as("the API server sets timeAdded").isNotNull();
        assertThat(Instant.parse(disruptionTarget(evicted).getLastTransitionTime()))
                .isAfterOrEqualTo(Instant.parse(added).plusSeconds(2));
    }

    private GenericKubernetesResource createRule(String effect) {
        Map<String, Object> spec = Map.of(
                "deviceSelector", Map.of("driver", driver),
                "taint", Map.of("key", "test.example.com/evict", "value", "now", "effect", effect));
        GenericKubernetesResource rule = new GenericKubernetesResource();
        rule.setApiVersion("resource.k8s.io/" + DeviceTaintEvictionController.DEVICE_TAINT_RULE_VERSION);
        rule.setKind("DeviceTaintRule");
        rule.setMetadata(new io.fabric8.kubernetes.api.model.ObjectMetaBuilder()
                .withGenerateName("device-taint-rule-" + ns + "-").build());
        rule.setAdditionalProperty("spec", spec);
        return cluster.admin.genericKubernetesResources(DeviceTaintEvictionController.DEVICE_TAINT_RULES)
                .resource(rule).create();
    }

    private Condition ruleCondition(GenericKubernetesResource created) {
        GenericKubernetesResource current = cluster.admin
                .genericKubernetesResources(DeviceTaintEvictionController.DEVICE_TAINT_RULES)
                .withName(created.getMetadata().getName()).get();
        DeviceTaintRule rule = cluster.admin.getKubernetesSerialization().convertValue(current, DeviceTaintRule.class);
        if (rule.getStatus() == null || rule.getStatus().getConditions() == null) {
            return null;
        }
        return rule.getStatus().getConditions().stream()
                .filter(c -> DeviceTaintEvictionController.CONDITION_EVICTION_IN_PROGRESS.equals(c.getType()))
                .findFirst().orElse(null);
    }

    @Test
    void aDeviceTaintRuleEvictsThePodAndReportsItInItsStatus() {
        slice(List.of());
        // as upstream's spec: the pod tolerates NoSchedule taints, not NoExecute ones
        DeviceToleration noSchedule = new DeviceTolerationBuilder().withOperator("Exists").withEffect("NoSchedule")
                .build();
        runningPod("p", "device-00", List.of(noSchedule));

        GenericKubernetesResource rule = createRule("NoExecute");

        assertEvictionCondition(awaitEvicted("p"));
        Condition condition = await().atMost(WAIT).until(() -> ruleCondition(rule),
                c -> c != null && "Completed".equals(c.getReason()));
        assertThat(condition.getStatus()).isEqualTo("False");
        assertThat(condition.getMessage()).isEqualTo("1 pod evicted since starting the controller.");
        assertThat(condition.getObservedGeneration()).isEqualTo(rule.getMetadata().getGeneration());
    }

    @Test
    void aRuleWithEffectNoneEvictsNobodyAndSaysWhatNoExecuteWouldDo() {
        slice(List.of());
        runningPod("p", "device-00", List.of());
        // the rule's status is computed once, from what the controller knows when the rule comes
        await().atMost(WAIT).until(() -> controller.knowsAllocation(ns, "c-p") && "Running".equals(
                podSeenByController("p").map(pod -> pod.getStatus().getPhase()).orElse(null)));

        GenericKubernetesResource rule = createRule("None");

        Condition condition = await().atMost(WAIT).until(() -> ruleCondition(rule), c -> c != null);
        assertThat(condition.getReason()).isEqualTo("NoEffect");
        assertThat(condition.getStatus()).isEqualTo("False");
        assertThat(condition.getMessage()).isEqualTo("2 published devices selected. 1 allocated device selected. "
                + "1 pod would be evicted in 1 namespace if the effect was NoExecute. This information will not be "
                + "updated again. Recreate the DeviceTaintRule to trigger an update.");
        assertThat(pod("p").getMetadata().getDeletionTimestamp()).isNull();
    }
}
