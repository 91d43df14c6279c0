package io.kdra.cluster.runtime.cdi;

import io.kdra.plugin.cdi.CdiDeviceId;
import io.kdra.plugin.cdi.DeviceNode;
import io.kdra.plugin.cdi.Mount;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tools.jackson.core.JacksonException;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.exc.UnrecognizedPropertyException;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * One CDI spec file as the CDI reference library reads it: every field of spec format 1.1.0 known, unknown fields
 * rejected, the declared {@code cdiVersion} checked against the features the content uses, and each device validated.
 *
 * @param cdiVersion the declared spec version
 * @param kind {@code <vendor>/<class>}
 * @param annotations spec annotations (0.6.0)
 * @param devices the devices
 * @param containerEdits edits applied when any device of the spec is injected
 */
record SpecFile(String cdiVersion, String kind, Map<String, String> annotations, List<DeviceEntry> devices,
        Edits containerEdits) {

    /** The spec versions the reference library knows, oldest first. */
    private static final List<String> VERSIONS =
            List.of("0.1.0", "0.2.0", "0.3.0", "0.4.0", "0.5.0", "0.6.0", "0.7.0", "0.8.0", "1.0.0", "1.1.0");
    private static final Set<String> HOOK_NAMES = Set.of("prestart", "createRuntime", "createContainer",
            "startContainer", "poststart", "poststop");
    private static final Set<String> DEVICE_NODE_TYPES = Set.of("", "b", "c", "u", "p");

    private static final ObjectMapper JSON = JsonMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();
    private static final ObjectMapper YAML = YAMLMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .build();

    /** A device entry of a spec. */
    record DeviceEntry(String name, Map<String, String> annotations, Edits containerEdits) {}

    /** Container edits as written in a spec; null lists mean none. */
    record Edits(List<String> env, List<DeviceNode> deviceNodes, List<Hook> hooks, List<Mount> mounts,
            List<Long> additionalGIDs, JsonNode intelRdt, List<NetDevice> netDevices) {

        static final Edits NONE = new Edits(null, null, null, null, null, null, null);

        Edits {
            env = env == null ? List.of() : env;
            deviceNodes = deviceNodes == null ? List.of() : deviceNodes;
            hooks = hooks == null ? List.of() : hooks;
            mounts = mounts == null ? List.of() : mounts;
            additionalGIDs = additionalGIDs == null ? List.of() : additionalGIDs;
            netDevices = netDevices == null ? List.of() : netDevices;
        }

        boolean isEmpty() {
            return env.isEmpty() && deviceNodes.isEmpty() && hooks.isEmpty() && mounts.isEmpty()
                    && additionalGIDs.isEmpty() && (intelRdt == null || intelRdt.isNull()) && netDevices.isEmpty();
        }
    }

    /** A network device moved into the container (1.1.0); validated, never applied. */
    record NetDevice(String hostInterfaceName, String name) {}

    /** A valid spec, ready for lookups: its devices by name. */
    record Loaded(Path path, String kind, Edits specEdits, Map<String, Edits> devices) {}

    /**
     * Reads and validates a spec file's content; {@code .yaml} files as YAML, the others as JSON.
     *
     * @throws IllegalArgumentException naming the file and the first problem
     */
    static Loaded load(Path path, byte[] content) {
        SpecFile spec;
        try {
            ObjectMapper mapper = path.getFileName().toString().endsWith(".yaml") ? YAML : JSON;
            spec = mapper.readValue(content, SpecFile.class);
        } catch (JacksonException e) {
            throw new IllegalArgumentException("failed to parse CDI Spec \"" + path + "\": " + describe(e), e);
        }
        if (spec == null) {
            throw new IllegalArgumentException("failed to parse CDI Spec \"" + path + "\", no Spec data");
        }
        try {
            return spec.validate(path);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("invalid CDI Spec \"" + path + "\": " + e.getMessage(), e);
        }
    }

    private Loaded validate(Path path) {
        int declared = VERSIONS.indexOf(cdiVersion == null ? "" : cdiVersion.replaceFirst("^v", ""));
        if (declared < 0) {
            throw new IllegalArgumentException("invalid version \"" + cdiVersion + "\"");
        }
        String required = requiredVersion();
        if (VERSIONS.indexOf(required) > declared) {
            throw new IllegalArgumentException("the spec version must be at least v" + required);
        }
        int slash = kind == null ? -1 : kind.indexOf('/');
        if (slash <= 0) {
            throw new IllegalArgumentException("invalid kind \"" + kind + "\", expected <vendor>/<class>");
        }
        Edits specEdits = containerEdits == null ? Edits.NONE : containerEdits;
        validate(specEdits);
        if (devices == null || devices.isEmpty()) {
            throw new IllegalArgumentException("invalid spec, no devices");
        }
        Map<String, Edits> byName = new LinkedHashMap<>();
        for (DeviceEntry device : devices) {
            try {
                // validates vendor, class and device name with the reference parser's rules
                new CdiDeviceId(kind.substring(0, slash), kind.substring(slash + 1), device.name());
                if (device.containerEdits() == null || device.containerEdits().isEmpty()) {
                    throw new IllegalArgumentException("invalid device, empty device edits");
                }
                validate(device.containerEdits());
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("failed add device \"" + device.name() + "\": " + e.getMessage(),
                        e);
            }
            if (byName.putIfAbsent(device.name(), device.containerEdits()) != null) {
                throw new IllegalArgumentException("invalid spec, multiple device \"" + device.name() + "\"");
            }
        }
        return new Loaded(path, kind, specEdits, byName);
    }

    /** The lowest spec version that has every feature this spec uses. */
    private String requiredVersion() {
        List<Edits> allEdits = new ArrayList<>();
        if (containerEdits != null) {
            allEdits.add(containerEdits);
        }
        boolean annotated = annotations != null && !annotations.isEmpty();
        boolean digitName = false;
        for (DeviceEntry device : devices == null ? List.<DeviceEntry>of() : devices) {
            if (device.containerEdits() != null) {
                allEdits.add(device.containerEdits());
            }
            annotated |= device.annotations() != null && !device.annotations().isEmpty();
            digitName |= device.name() != null && !device.name().isEmpty()
                    && !Character.isLetter(device.name().charAt(0));
        }
        if (allEdits.stream().anyMatch(edits -> !edits.netDevices().isEmpty())) {
            return "1.1.0";
        }
        if (allEdits.stream().anyMatch(edits -> (edits.intelRdt() != null && !edits.intelRdt().isNull())
                || !edits.additionalGIDs().isEmpty())) {
            return "0.7.0";
        }
        int slash = kind == null ? -1 : kind.indexOf('/');
        if (annotated || (slash > 0 && kind.indexOf('.', slash) > 0)) {
            return "0.6.0";
        }
        if (digitName || allEdits.stream().flatMap(edits -> edits.deviceNodes().stream())
                .anyMatch(node -> node.hostPath() != null && !node.hostPath().isEmpty())) {
            return "0.5.0";
        }
        if (allEdits.stream().flatMap(edits -> edits.mounts().stream())
                .anyMatch(mount -> mount.type() != null && !mount.type().isEmpty())) {
            return "0.4.0";
        }
        return "0.3.0";
    }

    private static void validate(Edits edits) {
        validateEnv(edits.env(), "invalid container edits: ");
        for (DeviceNode node : edits.deviceNodes()) {
            String type = node.type() == null ? "" : node.type();
            if (!DEVICE_NODE_TYPES.contains(type)) {
                throw new IllegalArgumentException("device \"" + node.path() + "\": invalid type \"" + type + "\"");
            }
            long major = node.major() == null ? 0 : node.major();
            long minor = node.minor() == null ? 0 : node.minor();
            if (major < 0 || minor < 0) {
                throw new IllegalArgumentException("device \"" + node.path()
                        + "\": invalid (negative) device number " + major + ":" + minor);
            }
            String permissions = node.permissions() == null ? "" : node.permissions();
            if (!permissions.equals("none") && !permissions.matches("[rwm]*")) {
                throw new IllegalArgumentException("device \"" + node.path() + "\": invalid permissions \""
                        + permissions + "\"");
            }
        }
        for (Hook hook : edits.hooks()) {
            if (!HOOK_NAMES.contains(hook.hookName())) {
                throw new IllegalArgumentException("invalid hook name \"" + hook.hookName() + "\"");
            }
            if (hook.path() == null || hook.path().isEmpty()) {
                throw new IllegalArgumentException("invalid hook \"" + hook.hookName() + "\" with empty path");
            }
            validateEnv(hook.env(), "invalid hook \"" + hook.hookName() + "\": ");
        }
        Set<String> hostNames = new HashSet<>();
        Set<String> names = new HashSet<>();
        for (NetDevice device : edits.netDevices()) {
            if (device.hostInterfaceName() == null || device.hostInterfaceName().isEmpty()) {
                throw new IllegalArgumentException("invalid linux net device, empty HostInterfaceName");
            }
            if (device.name() == null || device.name().isEmpty()) {
                throw new IllegalArgumentException("invalid linux net device, empty Name");
            }
            if (!hostNames.add(device.hostInterfaceName()) || !names.add(device.name())) {
                throw new IllegalArgumentException("invalid linux net device, duplicate \""
                        + device.hostInterfaceName() + "\" -> \"" + device.name() + "\"");
            }
        }
    }

    private static void validateEnv(List<String> env, String prefix) {
        for (String variable : env) {
            if (variable == null || variable.indexOf('=') <= 0) {
                throw new IllegalArgumentException(prefix + "invalid environment variable \"" + variable + "\"");
            }
        }
    }

    private static String describe(JacksonException e) {
        TokenStreamLocation location = e.getLocation();
        String where = location == null || location.getLineNr() < 0 ? ""
                : " (line " + location.getLineNr() + ", column " + location.getColumnNr() + ")";
        String problem = e instanceof UnrecognizedPropertyException unknown
                ? "unknown field \"" + unknown.getPropertyName() + "\"" : e.getOriginalMessage();
        return problem + where;
    }
}
