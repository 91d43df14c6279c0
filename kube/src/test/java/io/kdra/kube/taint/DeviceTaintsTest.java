package io.kdra.kube.taint;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceTaint;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceTaintBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceTaintRule;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceTaintRuleBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceTolerationBuilder;
import java.util.List;
import org.junit.jupiter.api.Test;

class DeviceTaintsTest {

    private static final DeviceTaint OWN = taint("own", "NoSchedule");
    private static final DeviceTaint RULE = taint("rule", "NoExecute");
    private static final Device DEVICE = new DeviceBuilder().withName("gpu-0").withTaints(OWN).build();

    @Test
    void rulesAddTheirTaintToTheDevicesTheySelect() {
        List<DeviceTaintRule> rules = List.of(
                rule("all", null, null, null),
                rule("other-driver", "other.example.com", null, null),
                rule("this-device", "dra.example.com", "pool-a", "gpu-0"),
                new DeviceTaintRuleBuilder().withNewMetadata().withName("no-selector").endMetadata().withNewSpec()
                        .withTaint(RULE).endSpec().build());

        assertThat(DeviceTaints.ruleTaints(rules, "dra.example.com", "pool-a", DEVICE)).containsExactly(RULE, RULE);
        assertThat(DeviceTaints.effectiveTaints(rules, "dra.example.com", "pool-a", DEVICE))
                .containsExactly(OWN, RULE, RULE);
        assertThat(DeviceTaints.effectiveTaints(List.of(), "dra.example.com", "pool-a", DEVICE)).containsExactly(OWN);
    }

    @Test
    void onlyUntoleratedNoScheduleAndNoExecuteTaintsPreventAllocation() {
        var tolerateOwn = new DeviceTolerationBuilder().withKey("own").withOperator("Exists").build();

        assertThat(DeviceTolerations.preventAllocation(List.of(OWN), List.of())).isTrue();
        assertThat(DeviceTolerations.preventAllocation(List.of(OWN), List.of(tolerateOwn))).isFalse();
        assertThat(DeviceTolerations.preventAllocation(List.of(taint("soft", "None")), List.of())).isFalse();
    }

    @Test
    void aRuleSelectsByTheFieldsItSets() {
        assertThat(DeviceTaints.selects(rule("all", null, null, null), "dra.example.com", "pool-a", "gpu-0")).isTrue();
        assertThat(DeviceTaints.selects(rule("this-device", "dra.example.com", "pool-a", "gpu-0"), "dra.example.com",
                "pool-a", "gpu-0")).isTrue();
        assertThat(DeviceTaints.selects(rule("other-device", "dra.example.com", "pool-a", "gpu-1"), "dra.example.com",
                "pool-a", "gpu-0")).isFalse();
        assertThat(DeviceTaints.selects(rule("other-pool", null, "pool-b", null), "dra.example.com", "pool-a",
                "gpu-0")).isFalse();
    }

    @Test
    void tolerationsMatchAsUpstreamMatchesThem() {
        DeviceTaint taint = new DeviceTaintBuilder().withKey("example.com/taint").withValue("tainted")
                .withEffect("NoExecute").build();
        assertThat(DeviceTolerations.tolerates(new DeviceTolerationBuilder().withOperator("Exists").build(), taint))
                .isTrue();
        assertThat(DeviceTolerations.tolerates(new DeviceTolerationBuilder().withKey("example.com/taint")
                .withValue("tainted").build(), taint)).isTrue();
        assertThat(DeviceTolerations.tolerates(new DeviceTolerationBuilder().withKey("example.com/taint")
                .withValue("other").build(), taint)).isFalse();
        assertThat(DeviceTolerations.tolerates(new DeviceTolerationBuilder().withKey("other").withOperator("Exists")
                .build(), taint)).isFalse();
        assertThat(DeviceTolerations.tolerates(new DeviceTolerationBuilder().withOperator("Exists")
                .withEffect("NoSchedule").build(), taint)).isFalse();
    }

    private static DeviceTaint taint(String key, String effect) {
        return new DeviceTaintBuilder().withKey(key).withEffect(effect).build();
    }

    private static DeviceTaintRule rule(String name, String driver, String pool, String device) {
        return new DeviceTaintRuleBuilder().withNewMetadata().withName(name).endMetadata().withNewSpec()
                .withNewDeviceSelector().withDriver(driver).withPool(pool).withDevice(device).endDeviceSelector()
                .withTaint(RULE).endSpec().build();
    }
}
