package io.kdra.plugin.cdi;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * A device node a CDI device makes available in the container. Only {@code path} is required; {@code null} fields are
 * left out of the JSON.
 *
 * @param path path of the node inside the container
 * @param hostPath path on the host, if it differs (needs cdiVersion 0.5.0)
 * @param type {@code b}, {@code c}, {@code u} or {@code p}
 * @param major major device number
 * @param minor minor device number
 * @param fileMode file mode bits
 * @param permissions cgroup permissions, a combination of {@code r}, {@code w} and {@code m}
 * @param uid owner user ID inside the container
 * @param gid owner group ID inside the container
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"path", "hostPath", "type", "major", "minor", "fileMode", "permissions", "uid", "gid"})
public record DeviceNode(String path, String hostPath, String type, Long major, Long minor, Integer fileMode,
        String permissions, Integer uid, Integer gid) {

    /** Requires an absolute container path. */
    public DeviceNode {
        if (path == null || !path.startsWith("/")) {
            throw new IllegalArgumentException("CDI device node path \"" + path + "\" must be absolute");
        }
    }

    /** A node at the same path in the container as on the host. */
    public static DeviceNode of(String path) {
        return new DeviceNode(path, null, null, null, null, null, null, null, null);
    }
}
