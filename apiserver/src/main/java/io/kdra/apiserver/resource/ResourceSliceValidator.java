package io.kdra.apiserver.resource;

import io.kdra.kube.ExpressionChecker;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * ResourceSlice ({@code ValidateResourceSlice}, {@code ...Update}): driver and pool, exactly one way of selecting
 * nodes, devices (at most 128, or 64 when any device has taints or consumes counters) or shared counters, never
 * both. Driver, pool name and node name are immutable.
 */
final class ResourceSliceValidator extends KindValidator {

    /** {@code ResourceSliceMaxDevices}. */
    static final int DEVICES_MAX = 128;
    /** {@code ResourceSliceMaxDevicesWithTaintsOrConsumesCounters}. */
    static final int DEVICES_WITH_TAINTS_OR_COUNTERS_MAX = 64;
    /** {@code ResourceSliceMaxCounterSets}. */
    static final int COUNTER_SETS_MAX = 8;

    private static final String NODE_SELECTION = "exactly one of `nodeName`, `nodeSelector`, `allNodes`, "
            + "`perDeviceNodeSelection` is required";

    ResourceSliceValidator(ExpressionChecker expressions) {
        super(expressions);
    }

    @Override
    void check(ValidationRun run, ObjectNode object, ObjectNode old) {
        ObjectNode oldSpec = old == null ? null : JsonNodes.objectOrEmpty(old.get("spec"));
        FieldPath path = FieldPath.ROOT.child("spec");
        ObjectNode spec = JsonNodes.objectOrEmpty(run.object(object, "spec", FieldPath.ROOT));
        FieldChecks.driverName(run, run.string(spec, "driver", path), path.child("driver"));
        pool(run, JsonNodes.objectOrEmpty(run.object(spec, "pool", path)), path.child("pool"));
        if (oldSpec != null) {
            immutable(run, spec.at("/pool/name"), oldSpec.at("/pool/name"), path.child("pool", "name"));
            immutable(run, spec.get("driver"), oldSpec.get("driver"), path.child("driver"));
            immutable(run, spec.get("nodeName"), oldSpec.get("nodeName"), path.child("nodeName"));
        }
        boolean perDeviceNodeSelection = nodeSelection(run, spec, path);
        List<JsonNode> devices = run.list(spec, "devices", path);
        List<JsonNode> counterSets = run.list(spec, "sharedCounters", path);
        if (devices != null && counterSets != null) {
            run.add(FieldErrors.invalid(path, "", "only one of `sharedCounters` or `devices` is allowed"));
        }
        List<JsonNode> deviceItems = devices == null ? List.of() : devices;
        int maxDevices = deviceItems.stream().anyMatch(DeviceChecks::usesTaintsOrCounters)
                ? DEVICES_WITH_TAINTS_OR_COUNTERS_MAX : DEVICES_MAX;
        CollectionChecks.set(run, deviceItems, maxDevices, path.child("devices"), (item, itemPath) -> {
            ObjectNode device = run.struct(item, itemPath);
            DeviceChecks.device(run, device, oldDevice(oldSpec, device.path("name").asString("")), itemPath,
                    perDeviceNodeSelection);
        }, CollectionChecks.keyField("name"));
        CollectionChecks.set(run, counterSets == null ? List.of() : counterSets, COUNTER_SETS_MAX,
                path.child("sharedCounters"),
                (item, itemPath) -> counterSet(run, run.struct(item, itemPath), itemPath),
                CollectionChecks.keyField("name"));
    }

    private static void pool(ValidationRun run, ObjectNode pool, FieldPath path) {
        FieldChecks.poolName(run, run.string(pool, "name", path), path.child("name"));
        long sliceCount = run.int64(pool, "resourceSliceCount", path);
        if (sliceCount <= 0) {
            run.add(FieldErrors.invalid(path.child("resourceSliceCount"), sliceCount, "must be greater than zero"));
        }
        long generation = run.int64(pool, "generation", path);
        if (generation < 0) {
            run.add(FieldErrors.invalid(path.child("generation"), generation,
                    "must be greater than or equal to zero"));
        }
    }

    /** @return whether the devices select their nodes themselves ({@code perDeviceNodeSelection: true}) */
    private static boolean nodeSelection(ValidationRun run, ObjectNode spec, FieldPath path) {
        List<String> setFields = new ArrayList<>(4);
        String nodeName = run.stringPointer(spec, "nodeName", path);
        if (nodeName != null) {
            if (nodeName.isEmpty()) {
                run.add(FieldErrors.invalid(path.child("nodeName"), nodeName,
                        "must be either unset or set to a non-empty string"));
            } else {
                setFields.add("`nodeName`");
                FieldChecks.nodeName(run, nodeName, path.child("nodeName"));
            }
        }
        ObjectNode nodeSelector = run.object(spec, "nodeSelector", path);
        if (nodeSelector != null) {
            setFields.add("`nodeSelector`");
            NodeSelectorChecks.nodeSelector(run, nodeSelector, path.child("nodeSelector"));
            JsonNode terms = nodeSelector.get("nodeSelectorTerms");
            if (terms == null || !terms.isArray() || terms.size() != 1) {
                run.add(FieldErrors.invalid(path.child("nodeSelector", "nodeSelectorTerms"), terms,
                        "must have exactly one node selector term"));
            }
        }
        trueOrUnset(run, spec, "allNodes", path, setFields);
        boolean perDevice = trueOrUnset(run, spec, "perDeviceNodeSelection", path, setFields);
        if (setFields.isEmpty()) {
            run.add(FieldErrors.required(path, NODE_SELECTION));
        } else if (setFields.size() > 1) {
            run.add(FieldErrors.invalid(path, "{" + String.join(", ", setFields) + "}",
                    NODE_SELECTION + ", but multiple fields are set"));
        }
        return perDevice;
    }

    /** A {@code *bool} that may only be true: counts as set when true. */
    private static boolean trueOrUnset(ValidationRun run, ObjectNode spec, String name, FieldPath path,
                                       List<String> setFields) {
        Boolean value = run.boolPointer(spec, name, path);
        if (Boolean.TRUE.equals(value)) {
            setFields.add("`" + name + "`");
            return true;
        }
        if (value != null) {
            run.add(FieldErrors.invalid(path.child(name), false, "must be either unset or set to true"));
        }
        return false;
    }

    private static void counterSet(ValidationRun run, ObjectNode counterSet, FieldPath path) {
        FieldChecks.required(run, run.string(counterSet, "name", path), path.child("name"), FieldChecks::dnsLabel);
        DeviceChecks.counters(run, counterSet, path);
    }

    private static void immutable(ValidationRun run, JsonNode value, JsonNode oldValue, FieldPath path) {
        if (!JsonNodes.semanticEquals(value, oldValue)) {
            run.add(FieldErrors.invalid(path, value == null || value.isMissingNode() ? null : value,
                    "field is immutable"));
        }
    }

    private static ObjectNode oldDevice(ObjectNode oldSpec, String name) {
        JsonNode devices = JsonNodes.get(oldSpec, "devices");
        if (devices == null || !devices.isArray()) {
            return null;
        }
        for (JsonNode device : devices.values()) {
            if (device.isObject() && device.path("name").asString("").equals(name)) {
                return (ObjectNode) device;
            }
        }
        return null;
    }
}
