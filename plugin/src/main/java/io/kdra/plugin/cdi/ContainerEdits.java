package io.kdra.plugin.cdi;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.List;

/**
 * Changes a container runtime applies to a container that requests a CDI device. Empty lists are left out of the
 * JSON, as the CDI reference types do.
 *
 * @param env environment variables as {@code NAME=value}
 * @param deviceNodes device nodes to create in the container
 * @param mounts bind mounts to add
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
@JsonPropertyOrder({"env", "deviceNodes", "mounts"})
public record ContainerEdits(List<String> env, List<DeviceNode> deviceNodes, List<Mount> mounts) {

    /** Copies the lists; {@code null} means none. */
    public ContainerEdits {
        env = env == null ? List.of() : List.copyOf(env);
        deviceNodes = deviceNodes == null ? List.of() : List.copyOf(deviceNodes);
        mounts = mounts == null ? List.of() : List.copyOf(mounts);
        for (String variable : env) {
            if (variable.indexOf('=') <= 0) {
                throw new IllegalArgumentException("CDI env entry \"" + variable + "\" is not of the form NAME=value");
            }
        }
    }

    /** Edits that only set environment variables. */
    public static ContainerEdits ofEnv(List<String> env) {
        return new ContainerEdits(env, List.of(), List.of());
    }

    /** Whether these edits change nothing. */
    @JsonIgnore
    public boolean isEmpty() {
        return env.isEmpty() && deviceNodes.isEmpty() && mounts.isEmpty();
    }
}
