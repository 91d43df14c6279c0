package io.kdra.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceTaintBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceTaintRule;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceTaintRuleBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceToleration;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceTolerationBuilder;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.kdra.framework.Builder;
import io.kdra.framework.DraSpec;
import io.kdra.framework.Driver;
import io.kdra.framework.Framework;
import io.kdra.framework.Nodes;
import io.kdra.framework.Pods;
import io.kdra.framework.Resources;
import io.kdra.framework.Waits;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** dra.go group M: every device of a network pool is tainted NoSchedule. */
@DraSpec
@DisplayName("[sig-node] [DRA] kubelet [Feature:DynamicResourceAllocation] [FeatureGate:DRADeviceTaints]")
@Tag("sig-node")
@Tag("DRA")
@Tag("Feature:DynamicResourceAllocation")
@Tag("FeatureGate:DRADeviceTaints")
@Tag("FeatureGate:DynamicResourceAllocation")
class KubeletDeviceTaintsSpecs {

    static final String EVICTION_FINALIZER = "e2e-test/dont-delete-me";

    final Framework f = Framework.create("dra");
    final Nodes nodes = Nodes.create(f, 1, 1);
    final Driver driver = Driver.create(f, nodes, Resources.networkResources(10, false),
            Resources.taintAllDevices(new DeviceTaintBuilder().withKey("example.com/taint").withValue("tainted")
                    .withEffect("NoSchedule").build()));
    final Builder b = Builder.create(f, driver);

    @Test
    @DisplayName("NoSchedule keeps pod pending [FeatureGate:DynamicResourceAllocation]")
    void noScheduleKeepsPodPending() {
        Builder.PodWithTemplate inline = b.podInline();
        b.create(inline.pod(), inline.template());
        Pods.waitForUnschedulable(f, inline.pod());
    }

    @Test
    @DisplayName("NoSchedule can be tolerated [FeatureGate:DynamicResourceAllocation]")
    void noScheduleCanBeTolerated() throws Exception {
        Builder.PodWithTemplate inline = b.podInline();
        tolerateAll(inline, "NoSchedule");
        b.create(inline.pod(), inline.template());
        b.testPod(inline.pod());
    }

    @Test
    @DisplayName("DeviceTaintRule evicts pod [FeatureGate:DRADeviceTaintRules] [FeatureGate:DRADeviceTaints] "
            + "[FeatureGate:DynamicResourceAllocation]")
    @Tag("FeatureGate:DRADeviceTaintRules")
    void deviceTaintRuleEvictsPod() throws Exception {
        Builder.PodWithTemplate inline = b.podInline();
        tolerateAll(inline, "NoSchedule");
        // the finalizer keeps the evicted (deleted) pod readable for the status check
        inline.pod().getMetadata().setFinalizers(List.of(EVICTION_FINALIZER));
        b.create(inline.pod(), inline.template());
        b.testPod(inline.pod());
        f.cleanup("remove the finalizer of " + inline.pod().getMetadata().getName(),
                () -> removeFinalizers(f, inline.pod()));

        f.by("Evicting pod...");
        DeviceTaintRule rule = b.create(evictionRule(f, driver));
        assertTimeAddedDefaulted(rule);
        waitForEviction(f, inline.pod());
    }

    /** Tolerate every taint with this effect (no key), as upstream's specs do. */
    static void tolerateAll(Builder.PodWithTemplate inline, String effect) {
        DeviceToleration toleration = new DeviceTolerationBuilder().withEffect(effect).withOperator("Exists").build();
        inline.template().getSpec().getSpec().getDevices().getRequests().get(0).getExactly()
                .setTolerations(List.of(toleration));
    }

    /** A NoExecute rule for every device of the driver, without timeAdded (the API server defaults it). */
    static DeviceTaintRule evictionRule(Framework f, Driver driver) {
        return new DeviceTaintRuleBuilder().withNewMetadata()
                .withGenerateName("device-taint-rule-" + f.uniqueName() + "-").endMetadata()
                .withNewSpec().withNewDeviceSelector().withDriver(driver.name()).endDeviceSelector()
                .withNewTaint().withEffect("NoExecute").withKey("test.example.com/evict").withValue("now").endTaint()
                .endSpec().build();
    }

    static void assertTimeAddedDefaulted(DeviceTaintRule rule) {
        String timeAdded = rule.getSpec().getTaint().getTimeAdded();
        assertThat(timeAdded).as("defaulted spec.taint.timeAdded").isNotNull();
        // allow for some clock drift and delays
        assertThat(Duration.between(OffsetDateTime.parse(timeAdded).toInstant(), Instant.now()).abs())
                .isLessThan(Duration.ofMinutes(1));
    }

    /** The pod becomes Terminating with the device taint manager's DisruptionTarget condition. */
    static void waitForEviction(Framework f, Pod pod) throws Exception {
        Waits.until("pod " + pod.getMetadata().getName() + " terminating", f.timeouts().podStart())
                .until(() -> {
                    Pod current = Pods.get(f, pod).call();
                    return current != null && current.getMetadata().getDeletionTimestamp() != null;
                });
        Pod evicted = Pods.get(f, pod).call();
        assertThat(evicted.getStatus().getConditions()).as("conditions of the evicted pod")
                .anySatisfy((PodCondition condition) -> {
                    assertThat(condition.getType()).isEqualTo("DisruptionTarget");
                    assertThat(condition.getStatus()).isEqualTo("True");
                    assertThat(condition.getReason()).isEqualTo("DeletionByDeviceTaintManager");
                    assertThat(condition.getMessage())
                            .isEqualTo("Device Taint manager: deleting due to NoExecute taint");
                });
    }

    /** Unblocks the deletion of a pod that kept its finalizer for the eviction check. */
    static void removeFinalizers(Framework f, Pod pod) {
        // a merge patch, so that the kubelet's concurrent status updates cause no conflict
        f.client().pods().inNamespace(f.namespace()).withName(pod.getMetadata().getName())
                .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"metadata\":{\"finalizers\":null}}");
    }
}
