package io.kdra.plugin.cdi;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.List;

/**
 * A mount a CDI device adds to the container.
 *
 * @param hostPath source on the host
 * @param containerPath target inside the container
 * @param type mount type, for example {@code bind} (needs cdiVersion 0.4.0); {@code null} to leave it out
 * @param options mount options, for example {@code ro} and {@code bind}
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
@JsonPropertyOrder({"hostPath", "containerPath", "type", "options"})
public record Mount(String hostPath, String containerPath, String type, List<String> options) {

    /** Requires both paths; {@code null} options mean none. */
    public Mount {
        if (hostPath == null || hostPath.isEmpty() || containerPath == null || containerPath.isEmpty()) {
            throw new IllegalArgumentException("CDI mount needs hostPath and containerPath, got \"" + hostPath
                    + "\" -> \"" + containerPath + "\"");
        }
        options = options == null ? List.of() : List.copyOf(options);
    }
}
