package io.kdra.plugin.metadata;

import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttribute;
import io.fabric8.kubernetes.api.model.resource.v1.NetworkDeviceData;
import java.util.List;
import java.util.Map;

/**
 * What one device metadata file says about a prepared ResourceClaim: the claim's identity, and for the file's request
 * the devices with their attributes. The same content is encoded once per configured {@link MetadataVersion}; both
 * versions have this shape.
 *
 * @param name the claim's name
 * @param namespace the claim's namespace
 * @param uid the claim's UID
 * @param generation starts at 1 when the claim is prepared
 * @param podClaimName the pod's name for a claim generated from a template, or {@code null} for a claim the pod
 *     references by its own name
 * @param requests the requests this file describes (one per file)
 */
public record DeviceMetadata(String name, String namespace, String uid, long generation, String podClaimName,
        List<Request> requests) {

    public DeviceMetadata {
        requests = List.copyOf(requests);
    }

    /**
     * One request of the claim.
     *
     * @param name the request name; {@code <request>/<subrequest>} for a request with alternatives
     * @param devices the devices allocated for it
     */
    public record Request(String name, List<Device> devices) {
        public Request {
            devices = List.copyOf(devices);
        }
    }

    /**
     * One allocated device.
     *
     * @param driver the driver that manages it
     * @param pool its pool
     * @param name its name within the pool
     * @param attributes attributes as in a ResourceSlice, keyed by qualified name; may be empty
     * @param networkData network data of a network device, or {@code null}
     */
    public record Device(String driver, String pool, String name, Map<String, DeviceAttribute> attributes,
            NetworkDeviceData networkData) {
        public Device {
            attributes = attributes == null ? Map.of() : Map.copyOf(attributes);
        }
    }
}
