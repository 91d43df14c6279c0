package io.kdra.plugin.cdi;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.MapperFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * A Container Device Interface spec file: a kind ({@code <vendor>/<class>}) and the devices a container runtime can
 * inject by their IDs {@code <kind>=<device name>}. Serialized as compact JSON in field order
 * {@code cdiVersion, kind, devices, containerEdits}; absent top-level edits are left out.
 *
 * @param cdiVersion the CDI spec version the content needs, for example {@code 0.3.0}
 * @param kind {@code <vendor>/<class>}
 * @param devices at least one device, names unique
 * @param containerEdits edits applied whenever any device of this spec is requested; {@code null} for none
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"cdiVersion", "kind", "devices", "containerEdits"})
public record CdiSpec(String cdiVersion, String kind, List<CdiDevice> devices, ContainerEdits containerEdits) {

    private static final JsonMapper JSON = JsonMapper.builder()
            .disable(MapperFeature.SORT_PROPERTIES_ALPHABETICALLY)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .build();

    /** Validates version, kind and devices. */
    public CdiSpec {
        if (cdiVersion == null || cdiVersion.isEmpty()) {
            throw new IllegalArgumentException("CDI spec for kind \"" + kind + "\" has no cdiVersion");
        }
        CdiDeviceId.validateKind(kind);
        if (devices == null || devices.isEmpty()) {
            throw new IllegalArgumentException("CDI spec for kind \"" + kind + "\" has no devices");
        }
        devices = List.copyOf(devices);
        Set<String> names = new HashSet<>();
        for (CdiDevice device : devices) {
            if (!names.add(device.name())) {
                throw new IllegalArgumentException("CDI spec for kind \"" + kind + "\" has device \""
                        + device.name() + "\" twice");
            }
        }
    }

    /** A spec without top-level container edits. */
    public static CdiSpec of(String cdiVersion, String kind, List<CdiDevice> devices) {
        return new CdiSpec(cdiVersion, kind, devices, null);
    }

    /**
     * Parses a spec written as JSON. Fields this model does not know (hooks, annotations, ...) are ignored.
     *
     * @throws IllegalArgumentException if the text is not JSON of a valid spec
     */
    public static CdiSpec fromJson(byte[] json) {
        try {
            return JSON.readValue(json, CdiSpec.class);
        } catch (JacksonException e) {
            throw new IllegalArgumentException("invalid CDI spec: " + e.getOriginalMessage(), e);
        }
    }

    /** The spec as compact UTF-8 JSON. */
    public byte[] toJson() {
        return JSON.writeValueAsBytes(this);
    }

    /**
     * The fully qualified ID of one of this spec's devices.
     *
     * @throws IllegalArgumentException if the spec has no device of that name
     */
    public CdiDeviceId deviceId(String deviceName) {
        if (devices.stream().noneMatch(device -> device.name().equals(deviceName))) {
            throw new IllegalArgumentException("CDI spec for kind \"" + kind + "\" has no device \"" + deviceName
                    + "\"");
        }
        int slash = kind.indexOf('/');
        return new CdiDeviceId(kind.substring(0, slash), kind.substring(slash + 1), deviceName);
    }
}
