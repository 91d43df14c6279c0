package io.kdra.plugin;

import java.time.Duration;
import java.time.Instant;

/**
 * The health of one device, sent to the kubelet on the DRAResourceHealth stream.
 *
 * @param poolName the pool that contains the device
 * @param deviceName the device within the pool
 * @param health its health
 * @param lastUpdated when the driver determined it; sent in whole seconds
 * @param healthCheckTimeout how long the kubelet trusts this report; zero for the kubelet default (30 s)
 * @param message optional detail, empty for none; the kubelet truncates it to 1024 characters
 */
public record DeviceHealth(String poolName, String deviceName, HealthStatus health, Instant lastUpdated,
        Duration healthCheckTimeout, String message) {

    /** A report with the kubelet's default timeout and no message. */
    public DeviceHealth(String poolName, String deviceName, HealthStatus health, Instant lastUpdated) {
        this(poolName, deviceName, health, lastUpdated, Duration.ZERO, "");
    }
}
