package io.kdra.plugin;

/** The health of a device as reported to the kubelet. */
public enum HealthStatus {
    /** The health cannot be determined; also what the kubelet assumes for devices that are not refreshed in time. */
    UNKNOWN,
    /** The device operates normally. */
    HEALTHY,
    /** The device has a problem. */
    UNHEALTHY
}
