package io.kdra.plugin;

import io.kdra.plugin.cdi.CdiDeviceId;
import java.util.List;

/**
 * One device a driver prepared for a claim, as reported to the kubelet.
 *
 * @param requestNames the claim requests this device serves; subrequest suffixes ({@code req/sub}) are stripped to the
 *     base request before the kubelet sees them; empty means all requests of the claim
 * @param poolName the pool that contains the device
 * @param deviceName the device within the pool
 * @param cdiDeviceIds fully qualified CDI device IDs the container runtime injects for this device
 * @param shareId the share ID of the allocation result (consumable capacity), or {@code null}; sent on the v1 API
 *     only
 */
public record PreparedDevice(List<String> requestNames, String poolName, String deviceName, List<String> cdiDeviceIds,
        String shareId) {

    /**
     * Requires pool and device names and validates every CDI ID.
     *
     * @throws IllegalArgumentException naming the device and the problem
     */
    public PreparedDevice {
        requestNames = List.copyOf(requestNames);
        cdiDeviceIds = List.copyOf(cdiDeviceIds);
        if (poolName == null || poolName.isEmpty() || deviceName == null || deviceName.isEmpty()) {
            throw new IllegalArgumentException("prepared device needs a pool and a device name, got pool \""
                    + poolName + "\" device \"" + deviceName + "\"");
        }
        for (String id : cdiDeviceIds) {
            CdiDeviceId.parse(id);
        }
    }

    /** A device without a share ID. */
    public PreparedDevice(List<String> requestNames, String poolName, String deviceName, List<String> cdiDeviceIds) {
        this(requestNames, poolName, deviceName, cdiDeviceIds, null);
    }
}
