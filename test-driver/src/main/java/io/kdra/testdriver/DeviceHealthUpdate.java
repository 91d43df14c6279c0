package io.kdra.testdriver;

import io.kdra.plugin.HealthStatus;
import java.util.Objects;

/**
 * A change of one device's health that a test feeds into {@link ExamplePlugin#updateDeviceHealth}.
 *
 * @param poolName the pool that contains the device
 * @param deviceName the device within the pool
 * @param health the new health
 * @param message detail for the kubelet, empty for none
 */
public record DeviceHealthUpdate(String poolName, String deviceName, HealthStatus health, String message) {

    /** Requires every field; a missing message becomes empty. */
    public DeviceHealthUpdate {
        Objects.requireNonNull(poolName, "poolName");
        Objects.requireNonNull(deviceName, "deviceName");
        Objects.requireNonNull(health, "health");
        message = message == null ? "" : message;
    }
}
