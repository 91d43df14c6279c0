package io.kdra.apiserver.resource;

import io.kdra.kube.Quantity;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** One device of a ResourceSlice ({@code validateDevice}) and the quantities and counters around it. */
final class DeviceChecks {

    /** {@code ResourceSliceMaxAttributesAndCapacitiesPerDevice}. */
    static final int ATTRIBUTES_AND_CAPACITIES_MAX = 32;
    /** {@code DeviceAttributeMaxValueLength}. */
    static final int ATTRIBUTE_VALUE_MAX_LENGTH = 64;
    /** {@code ResourceSliceMaxDeviceCounterConsumptionsPerDevice}. */
    static final int COUNTER_CONSUMPTIONS_MAX = 2;
    /** {@code ResourceSliceMaxCountersPerCounterSet} and {@code ResourceSliceMaxCountersPerDeviceCounterConsumption}. */
    static final int COUNTERS_MAX = 32;
    /** {@code CapacityRequestPolicyDiscreteMaxOptions}. */
    static final int VALID_VALUES_MAX = 10;

    /** Map keys longer than {@code <domain>/<ID>} may be are shortened in paths. */
    private static final int QUALIFIED_NAME_KEY_LENGTH =
            FieldChecks.DEVICE_MAX_DOMAIN_LENGTH + 1 + FieldChecks.DEVICE_MAX_ID_LENGTH;
    private static final String NUMERIC = "(0|[1-9]\\d*)";
    private static final String PRE_RELEASE = "(0|[1-9]\\d*|\\d*[a-zA-Z-][0-9a-zA-Z-]*)";
    private static final String BUILD = "[0-9a-zA-Z-]+";
    private static final Pattern SEMVER = Pattern.compile(NUMERIC + "\\." + NUMERIC + "\\." + NUMERIC
            + "(-" + PRE_RELEASE + "(\\." + PRE_RELEASE + ")*)?" + "(\\+" + BUILD + "(\\." + BUILD + ")*)?");
    private static final String PER_DEVICE_MESSAGE = "exactly one of `nodeName`, `nodeSelector`, or `allNodes` is "
            + "required when `perDeviceNodeSelection` is set to true in the ResourceSlice spec";

    private DeviceChecks() {
    }

    /**
     * @param oldDevice the stored device of the same name on update, or null: unchanged capacity and taints are
     *                  not checked again
     */
    static void device(ValidationRun run, ObjectNode device, ObjectNode oldDevice, FieldPath path,
                       boolean perDeviceNodeSelection) {
        FieldChecks.dnsLabel(run, run.string(device, "name", path), path.child("name"));
        ObjectNode attributes = run.object(device, "attributes", path);
        ObjectNode capacity = run.object(device, "capacity", path);
        int total = size(attributes) + size(capacity);
        if (total > ATTRIBUTES_AND_CAPACITIES_MAX) {
            run.add(FieldErrors.invalid(path, total,
                    "the total number of attributes and capacities must not exceed " + ATTRIBUTES_AND_CAPACITIES_MAX));
        }
        if (attributes != null) {
            CollectionChecks.map(run, attributes, CollectionChecks.UNLIMITED, QUALIFIED_NAME_KEY_LENGTH,
                    path.child("attributes"), (name, keyPath) -> FieldChecks.qualifiedName(run, name, keyPath),
                    (value, valuePath) -> attribute(run, run.struct(value, valuePath), valuePath));
        }
        boolean multipleAllocations = Boolean.TRUE.equals(run.boolPointer(device, "allowMultipleAllocations", path));
        if (capacity != null && (oldDevice == null || !JsonNodes.semanticEquals(capacity, oldDevice.get("capacity")))) {
            CollectionChecks.map(run, capacity, CollectionChecks.UNLIMITED, QUALIFIED_NAME_KEY_LENGTH,
                    path.child("capacity"), (name, keyPath) -> FieldChecks.qualifiedName(run, name, keyPath),
                    (value, valuePath) -> capacity(run, run.struct(value, valuePath), valuePath, multipleAllocations));
        }
        List<JsonNode> taints = run.items(device, "taints", path);
        if (oldDevice == null || !JsonNodes.semanticEquals(device.get("taints"), oldDevice.get("taints"))) {
            CollectionChecks.list(run, taints, TaintChecks.DEVICE_TAINTS_MAX, path.child("taints"),
                    (item, itemPath) -> TaintChecks.taint(run, run.struct(item, itemPath), null, itemPath));
        }
        CollectionChecks.set(run, run.items(device, "consumesCounters", path), COUNTER_CONSUMPTIONS_MAX,
                path.child("consumesCounters"),
                (item, itemPath) -> counterConsumption(run, run.struct(item, itemPath), itemPath),
                CollectionChecks.keyField("counterSet"));
        nodeSelection(run, device, path, perDeviceNodeSelection);
        run.boolPointer(device, "bindsToNode", path);
        BindingConditionChecks.bindingConditions(run, device, path);
    }

    static boolean usesTaintsOrCounters(JsonNode device) {
        return nonEmptyArray(device.get("taints")) || nonEmptyArray(device.get("consumesCounters"));
    }

    /** A map of quantities, such as a request's {@code capacity.requests}: each value must parse. */
    static void quantities(ValidationRun run, ObjectNode quantities, FieldPath path) {
        if (quantities != null) {
            quantities.properties().forEach(entry -> run.quantity(entry.getValue(), path.key(entry.getKey())));
        }
    }

    /** {@code counters} of a counter set or of a device's consumption: DNS-label names, at most 32. */
    static void counters(ValidationRun run, ObjectNode parent, FieldPath parentPath) {
        ObjectNode counters = run.object(parent, "counters", parentPath);
        FieldPath path = parentPath.child("counters");
        if (counters == null || counters.isEmpty()) {
            run.add(FieldErrors.required(path, ""));
            return;
        }
        CollectionChecks.map(run, counters, COUNTERS_MAX, NameFormats.DNS1123_LABEL_MAX_LENGTH, path,
                (name, keyPath) -> FieldChecks.dnsLabel(run, name, keyPath),
                (counter, counterPath) -> run.quantity(run.struct(counter, counterPath), "value", counterPath));
    }

    private static void attribute(ValidationRun run, ObjectNode attribute, FieldPath path) {
        int fields = 0;
        if (run.boolPointer(attribute, "bool", path) != null) {
            fields++;
        }
        if (ValidationRun.present(attribute, "int") != null) {
            run.int64(attribute, "int", path);
            fields++;
        }
        String string = run.stringPointer(attribute, "string", path);
        if (string != null) {
            fields++;
            if (GoStrings.byteLength(string) > ATTRIBUTE_VALUE_MAX_LENGTH) {
                run.add(FieldErrors.tooLong(path.child("string"), ATTRIBUTE_VALUE_MAX_LENGTH));
            }
        }
        String version = run.stringPointer(attribute, "version", path);
        if (version != null) {
            fields++;
            if (!SEMVER.matcher(version).matches()) {
                run.add(FieldErrors.invalid(path.child("version"), version,
                        "must be a string compatible with semver.org spec 2.0.0"));
            }
            if (GoStrings.byteLength(version) > ATTRIBUTE_VALUE_MAX_LENGTH) {
                run.add(FieldErrors.tooLong(path.child("version"), ATTRIBUTE_VALUE_MAX_LENGTH));
            }
        }
        if (fields == 0) {
            run.add(FieldErrors.invalid(path, "", "exactly one value must be specified"));
        } else if (fields > 1) {
            run.add(FieldErrors.invalid(path, attribute, "exactly one value must be specified"));
        }
    }

    private static void capacity(ValidationRun run, ObjectNode capacity, FieldPath path, boolean multipleAllocations) {
        Quantity value = run.quantity(capacity, "value", path);
        ObjectNode policy = run.object(capacity, "requestPolicy", path);
        if (policy == null) {
            return;
        }
        if (!multipleAllocations) {
            run.add(FieldErrors.forbidden(path.child("requestPolicy"), "allowMultipleAllocations must be true"));
        } else if (value != null) {
            RequestPolicyChecks.requestPolicy(run, value, policy, path.child("requestPolicy"));
        }
    }

    private static void counterConsumption(ValidationRun run, ObjectNode consumption, FieldPath path) {
        FieldChecks.required(run, run.string(consumption, "counterSet", path), path.child("counterSet"),
                FieldChecks::dnsLabel);
        counters(run, consumption, path);
    }

    private static void nodeSelection(ValidationRun run, ObjectNode device, FieldPath path, boolean perDevice) {
        String nodeName = run.stringPointer(device, "nodeName", path);
        ObjectNode nodeSelector = run.object(device, "nodeSelector", path);
        Boolean allNodes = run.boolPointer(device, "allNodes", path);
        if (!perDevice) {
            if (nodeName != null || nodeSelector != null || allNodes != null) {
                run.add(FieldErrors.invalid(path, (JsonNode) null, "`nodeName`, `nodeSelector` and `allNodes` can "
                        + "only be set if `perDeviceNodeSelection` is set to true in the ResourceSlice spec"));
            }
            return;
        }
        List<String> setFields = new ArrayList<>(3);
        if (nodeName != null) {
            if (nodeName.isEmpty()) {
                run.add(FieldErrors.invalid(path.child("nodeName"), nodeName, "must not be empty"));
            } else {
                setFields.add("`nodeName`");
                FieldChecks.nodeName(run, nodeName, path.child("nodeName"));
            }
        }
        if (nodeSelector != null) {
            setFields.add("`nodeSelector`");
            NodeSelectorChecks.nodeSelector(run, nodeSelector, path.child("nodeSelector"));
        }
        if (allNodes != null) {
            if (allNodes) {
                setFields.add("`allNodes`");
            } else {
                run.add(FieldErrors.invalid(path.child("allNodes"), false, "must be either unset or set to true"));
            }
        }
        if (setFields.isEmpty()) {
            run.add(FieldErrors.required(path, PER_DEVICE_MESSAGE));
        } else if (setFields.size() > 1) {
            run.add(FieldErrors.invalid(path, "{" + String.join(", ", setFields) + "}", PER_DEVICE_MESSAGE));
        }
    }

    private static int size(ObjectNode map) {
        return map == null ? 0 : map.size();
    }

    private static boolean nonEmptyArray(JsonNode node) {
        return node != null && node.isArray() && !node.isEmpty();
    }
}
