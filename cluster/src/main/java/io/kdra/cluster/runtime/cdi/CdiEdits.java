package io.kdra.cluster.runtime.cdi;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.kdra.plugin.cdi.DeviceNode;
import io.kdra.plugin.cdi.Mount;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.json.JsonMapper;

/**
 * The container edits of resolved CDI devices, merged as the CDI reference library applies them to an OCI spec: each
 * spec's top-level edits once, before the edits of its first requested device, then the device's own edits, in the
 * order the devices were requested.
 *
 * @param devices the device IDs these edits come from, duplicates removed
 * @param env {@code NAME=value} entries in the order they apply; a later entry replaces an earlier one of the same name
 * @param deviceNodes device nodes, one per container path (a later one replaces an earlier one)
 * @param mounts mounts, one per container path, sorted by depth of the container path (parents first)
 * @param hooks hooks in the order they were given; never run by kdra
 */
@JsonPropertyOrder({"devices", "env", "deviceNodes", "mounts", "hooks"})
public record CdiEdits(List<String> devices, List<String> env, List<DeviceNode> deviceNodes, List<Mount> mounts,
        List<Hook> hooks) {

    /** No devices, no edits. */
    public static final CdiEdits NONE = new CdiEdits(List.of(), List.of(), List.of(), List.of(), List.of());

    private static final JsonMapper JSON = JsonMapper.builder().build();

    public CdiEdits {
        devices = List.copyOf(devices);
        env = List.copyOf(env);
        deviceNodes = List.copyOf(deviceNodes);
        mounts = List.copyOf(mounts);
        hooks = List.copyOf(hooks);
    }

    /**
     * A container's environment after these edits: the given variables, each CDI entry replacing the variable of its
     * name in place or adding it at the end, as the OCI spec generator does.
     */
    public Map<String, String> applyEnv(Map<String, String> environment) {
        Map<String, String> result = new LinkedHashMap<>(environment);
        for (String entry : env) {
            int equals = entry.indexOf('=');
            result.put(entry.substring(0, equals), entry.substring(equals + 1));
        }
        return result;
    }

    /** These edits as JSON, the form a container finds them in. */
    public byte[] toJson() {
        return JSON.writeValueAsBytes(this);
    }
}
