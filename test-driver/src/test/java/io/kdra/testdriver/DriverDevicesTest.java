package io.kdra.testdriver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.resource.v1.Device;
import org.junit.jupiter.api.Test;

class DriverDevicesTest {

    @Test
    void namesAreNumberedWithTwoDigitsAtLeast() {
        assertThat(DriverDevices.numbered(3)).extracting(Device::getName)
                .containsExactly("device-00", "device-01", "device-02");
        assertThat(DriverDevices.name(123)).isEqualTo("device-123");
        assertThat(DriverDevices.numbered(0)).isEmpty();
    }

    @Test
    void negativeCountsAreRejected() {
        assertThatThrownBy(() -> DriverDevices.numbered(-1)).hasMessage("device count must not be negative, got -1");
        assertThatThrownBy(() -> DriverDevices.name(-1)).hasMessage("device index must not be negative, got -1");
    }
}
