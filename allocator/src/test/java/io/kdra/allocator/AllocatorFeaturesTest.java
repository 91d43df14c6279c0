package io.kdra.allocator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kdra.allocator.cel.CelSelectorCompiler;
import io.kdra.kube.ExpressionChecker;
import io.kdra.kube.FeatureGates;
import io.kdra.kube.KubernetesVersion;
import org.junit.jupiter.api.Test;

class AllocatorFeaturesTest {

    @Test
    void kubernetes134EnablesItsBetaGates() {
        assertThat(AllocatorFeatures.KUBERNETES_1_34.enabledGates())
                .containsExactly("DRAAdminAccess", "DRAPrioritizedList", "DRAResourceClaimDeviceStatus");
    }

    @Test
    void aGateIsSwitchedByItsKubernetesName() {
        AllocatorFeatures features = AllocatorFeatures.KUBERNETES_1_34.withGate("DRADeviceTaints", true)
                .withGate("DRAAdminAccess", false);

        assertThat(features.deviceTaints()).isTrue();
        assertThat(features.adminAccess()).isFalse();
        assertThat(AllocatorFeatures.ALL.enabledGates()).containsExactlyElementsOf(AllocatorFeatures.gateNames());
    }

    @Test
    void anUnknownGateIsNamedInTheError() {
        assertThatThrownBy(() -> AllocatorFeatures.KUBERNETES_1_34.withGate("DRAMagic", true))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("unknown DRA feature gate \"DRAMagic\"; known gates: DRAAdminAccess, DRAPrioritizedList,"
                        + " DRADeviceTaints, DRADeviceTaintRules, DRAPartitionableDevices, DRAConsumableCapacity,"
                        + " DRADeviceBindingConditions, DRAResourceClaimDeviceStatus, DRADeviceCompatibilityGroups,"
                        + " DRAOptionalNodeOperations");
    }

    @Test
    void featureGatesGiveTheAllocationFeatures() {
        assertThat(AllocatorFeatures.from(FeatureGates.defaults(new KubernetesVersion(1, 34))))
                .isEqualTo(AllocatorFeatures.KUBERNETES_1_34);
        // DRADeviceCompatibilityGroups and DRAOptionalNodeOperations are alpha, off by default, in 1.37
        assertThat(AllocatorFeatures.from(FeatureGates.defaults(new KubernetesVersion(1, 37))))
                .isEqualTo(AllocatorFeatures.ALL.withGate("DRADeviceCompatibilityGroups", false)
                        .withGate("DRAOptionalNodeOperations", false));
        assertThat(AllocatorFeatures.from(FeatureGates.parse(new KubernetesVersion(1, 36), "DRAAdminAccess=true,"
                + "DRADeviceTaintRules=true,DRAConsumableCapacity=false")))
                .isEqualTo(AllocatorFeatures.ALL.withGate("DRAConsumableCapacity", false)
                        .withGate("DRADeviceCompatibilityGroups", false).withGate("DRAOptionalNodeOperations", false));
        assertThat(AllocatorFeatures.from(FeatureGates.parse(new KubernetesVersion(1, 37),
                "DRADeviceCompatibilityGroups=true,DRAOptionalNodeOperations=true"))).isEqualTo(AllocatorFeatures.ALL);
        assertThat(CelSelectorCompiler.Options.from(FeatureGates.defaults(new KubernetesVersion(1, 36)))
                .consumableCapacity()).isTrue();
        assertThat(CelSelectorCompiler.Options.from(FeatureGates.defaults(new KubernetesVersion(1, 35)))
                .consumableCapacity()).isFalse();
    }

    @Test
    void theExpressionCheckerCompilesWithTheGatedCelFeatures() {
        ExpressionChecker on = CelSelectorCompiler.expressionChecker(FeatureGates.defaults(new KubernetesVersion(1, 36)));
        ExpressionChecker off = CelSelectorCompiler.expressionChecker(FeatureGates.defaults(new KubernetesVersion(1, 34)));

        assertThat(on.check("device.allowMultipleAllocations == true")).isEmpty();
        assertThat(off.check("device.allowMultipleAllocations == true")).isPresent();
        assertThat(on.check("device.driver ==")).get().asString().startsWith("compilation failed: ERROR: ");
        assertThat(on.check("device.driver")).contains("must evaluate to bool or the unknown type, not string");
    }
}
