package io.kdra.allocator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
                        + " DRADeviceBindingConditions, DRAResourceClaimDeviceStatus");
    }
}
