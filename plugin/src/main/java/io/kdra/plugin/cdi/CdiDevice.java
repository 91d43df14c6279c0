package io.kdra.plugin.cdi;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * One device of a CDI spec. Its fully qualified ID is {@code <spec kind>=<name>}.
 *
 * @param name device name, unique within the spec's kind; starts and ends with a letter or digit
 * @param containerEdits what the device changes in a container; must not be empty, because runtimes reject a device
 *     that is only a name
 */
@JsonPropertyOrder({"name", "containerEdits"})
public record CdiDevice(String name, ContainerEdits containerEdits) {

    /** Validates the name and requires non-empty edits. */
    public CdiDevice {
        try {
            CdiDeviceId.validateDeviceName(name);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("CDI device \"" + name + "\": " + e.getMessage(), e);
        }
        if (containerEdits == null || containerEdits.isEmpty()) {
            throw new IllegalArgumentException("CDI device \"" + name + "\" has no container edits");
        }
    }
}
