package io.kdra.plugin;

import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttribute;
import io.fabric8.kubernetes.api.model.resource.v1.NetworkDeviceData;
import io.kdra.plugin.cdi.CdiDeviceId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

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
 * @param metadata what the device metadata files say about the device besides its names, or {@code null} for nothing;
 *     used only when the plugin writes device metadata ({@link KubeletPlugin.Builder#enableDeviceMetadata})
 */
public record PreparedDevice(List<String> requestNames, String poolName, String deviceName, List<String> cdiDeviceIds,
        String shareId, Metadata metadata) {

    /**
     * A device's entry in the device metadata files, upstream's {@code kubeletplugin.DeviceMetadata}.
     *
     * @param attributes attributes as in a ResourceSlice, keyed by qualified name
     * @param networkData network data of a network device, or {@code null}
     */
    public record Metadata(Map<String, DeviceAttribute> attributes, NetworkDeviceData networkData) {
        public Metadata {
            attributes = attributes == null ? Map.of() : Map.copyOf(attributes);
        }
    }

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

    /** A device without metadata. */
    public PreparedDevice(List<String> requestNames, String poolName, String deviceName, List<String> cdiDeviceIds,
            String shareId) {
        this(requestNames, poolName, deviceName, cdiDeviceIds, shareId, null);
    }

    /** A device without share ID and metadata. */
    public PreparedDevice(List<String> requestNames, String poolName, String deviceName, List<String> cdiDeviceIds) {
        this(requestNames, poolName, deviceName, cdiDeviceIds, null, null);
    }

    /** This device with its entry in the device metadata files. */
    public PreparedDevice withMetadata(Metadata deviceMetadata) {
        return new PreparedDevice(requestNames, poolName, deviceName, cdiDeviceIds, shareId, deviceMetadata);
    }

    /** This device with more CDI device IDs after its own. */
    PreparedDevice withMoreCdiDeviceIds(List<String> more) {
        List<String> all = new ArrayList<>(cdiDeviceIds);
        all.addAll(more);
        return new PreparedDevice(requestNames, poolName, deviceName, all, shareId, metadata);
    }
}
