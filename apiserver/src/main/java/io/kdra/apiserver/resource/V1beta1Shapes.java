package io.kdra.apiserver.resource;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Where resource.k8s.io/v1beta1 differs from v1 (upstream {@code pkg/apis/resource/v1beta1/conversion.go}):
 * <ul>
 *   <li>a DeviceRequest carries the fields of v1's {@code exactly} directly, next to {@code firstAvailable};</li>
 *   <li>a Device nests everything but its name under {@code basic};</li>
 *   <li>a ResourceSliceSpec has a plain {@code nodeName} string and {@code allNodes} bool, where v1 has pointers.</li>
 * </ul>
 * Values move unchanged. Unknown fields inside a dissolved wrapper ({@code exactly}, {@code basic}) are dropped, as
 * Go drops unknown fields (a request's body has lost them already when it was decoded); other fields that neither
 * version knows stay where they are. Where Go would drop a moved value
 * when encoding it again (an empty list, an empty attribute or capacity map, a zero string or number), it is
 * dropped here too, so that the output is what kube-apiserver returns.
 */
final class V1beta1Shapes {

    /** ExactDeviceRequest's fields in v1 order; in v1beta1 they sit on the request itself. */
    private static final List<String> EXACT_REQUEST_FIELDS = List.of("deviceClassName", "selectors",
            "allocationMode", "count", "adminAccess", "tolerations", "capacity");
    /** The exact-request fields that, unlike {@code deviceClassName}, are written only when set. */
    private static final List<String> OPTIONAL_EXACT_REQUEST_FIELDS =
            EXACT_REQUEST_FIELDS.subList(1, EXACT_REQUEST_FIELDS.size());
    /** Device fields other than the name, in v1 order; in v1beta1 they sit under {@code basic}. */
    private static final List<String> DEVICE_FIELDS = List.of("attributes", "capacity", "consumesCounters",
            "nodeName", "nodeSelector", "allNodes", "taints", "bindsToNode", "bindingConditions",
            "bindingFailureConditions", "allowMultipleAllocations");
    /** Device maps that upstream copies only when they have entries. */
    private static final Set<String> DEVICE_MAPS = Set.of("attributes", "capacity");

    private V1beta1Shapes() {
    }

    /** The {@code devices} of a claim spec, from v1beta1 to v1, in place. */
    static void claimDevicesToV1(JsonNode devices) {
        eachObject(JsonNodes.get(devices, "requests"), V1beta1Shapes::requestToV1);
    }

    static void claimDevicesFromV1(JsonNode devices) {
        eachObject(JsonNodes.get(devices, "requests"), V1beta1Shapes::requestFromV1);
    }

    /** @throws IllegalArgumentException naming the device whose {@code basic} is neither an object nor null */
    static void sliceSpecToV1(JsonNode spec) {
        if (spec instanceof ObjectNode sliceSpec) {
            dropUnsetNodeSelection(sliceSpec);
            JsonNode devices = sliceSpec.get("devices");
            for (int i = 0; devices != null && devices.isArray() && i < devices.size(); i++) {
                if (devices.get(i) instanceof ObjectNode device) {
                    deviceToV1(device, "spec.devices[" + i + "]");
                }
            }
        }
    }

    static void sliceSpecFromV1(JsonNode spec) {
        if (spec instanceof ObjectNode sliceSpec) {
            dropUnsetNodeSelection(sliceSpec);
            eachObject(sliceSpec.get("devices"), V1beta1Shapes::deviceFromV1);
        }
    }

    /**
     * v1beta1 cannot tell an empty {@code nodeName} or a false {@code allNodes} from an unset one, and v1 reads both
     * as unset.
     */
    private static void dropUnsetNodeSelection(ObjectNode spec) {
        if (!isSet(spec, "nodeName")) {
            spec.remove("nodeName");
        }
        JsonNode allNodes = spec.get("allNodes");
        if (allNodes != null && (allNodes.isNull() || allNodes.isBoolean() && !allNodes.booleanValue())) {
            spec.remove("allNodes");
        }
    }

    /** Any exact-request field that is set makes an {@code exactly}; one next to subrequests fails validation. */
    private static void requestToV1(ObjectNode request) {
        boolean exact = EXACT_REQUEST_FIELDS.stream().anyMatch(name -> isSet(request, name));
        ObjectNode exactly = JsonNodes.emptyObject();
        if (exact) {
            exactly.put("deviceClassName", request.path("deviceClassName").asString(""));
            copySetFields(request, exactly, OPTIONAL_EXACT_REQUEST_FIELDS, Set.of());
        }
        EXACT_REQUEST_FIELDS.forEach(request::remove);
        if (exact) {
            rewrite(request, JsonNodes.emptyObject().set("exactly", exactly));
        }
    }

    /** v1beta1 always writes {@code deviceClassName}, also as "" for a request with subrequests. */
    private static void requestFromV1(ObjectNode request) {
        JsonNode exactly = request.remove("exactly");
        ObjectNode exact = JsonNodes.objectOrEmpty(exactly);
        ObjectNode flat = JsonNodes.emptyObject();
        flat.put("deviceClassName", exact.path("deviceClassName").asString(""));
        copySetFields(exact, flat, OPTIONAL_EXACT_REQUEST_FIELDS, Set.of());
        rewrite(request, flat);
    }

    /**
     * A {@code basic} of another type is an error here, as Go fails to decode it: dropped, it would leave only errors
     * about the fields it should have held, none naming {@code basic}.
     */
    private static void deviceToV1(ObjectNode device, String path) {
        JsonNode basic = device.remove("basic");
        if (basic instanceof ObjectNode fields) {
            ObjectNode flat = JsonNodes.emptyObject();
            copySetFields(fields, flat, DEVICE_FIELDS, DEVICE_MAPS);
            rewrite(device, flat);
        } else if (basic != null && !basic.isNull()) {
            throw new IllegalArgumentException(path + ".basic: Invalid value: " + basic + ": must be of type object");
        }
    }

    /** Upstream always writes {@code basic}, even for a device that has nothing but a name. */
    private static void deviceFromV1(ObjectNode device) {
        ObjectNode basic = JsonNodes.emptyObject();
        copySetFields(device, basic, DEVICE_FIELDS, DEVICE_MAPS);
        DEVICE_FIELDS.forEach(device::remove);
        rewrite(device, JsonNodes.emptyObject().set("basic", basic));
    }

    private static void copySetFields(ObjectNode from, ObjectNode to, List<String> names, Set<String> maps) {
        for (String name : names) {
            JsonNode value = from.get(name);
            boolean droppedWhenEmpty = value != null && (value.isArray() || maps.contains(name) && value.isObject());
            if (isSet(from, name) && !(droppedWhenEmpty && value.isEmpty())) {
                to.set(name, value);
            }
        }
    }

    /** Go's view of a decoded field: a non-empty string, a non-zero number, or any non-null bool, list or object. */
    private static boolean isSet(ObjectNode parent, String name) {
        JsonNode value = parent.get(name);
        if (value == null || value.isNull()) {
            return false;
        }
        if (value.isString()) {
            return !value.stringValue().isEmpty();
        }
        return !value.isNumber() || value.decimalValue().signum() != 0;
    }

    /** Puts {@code name} first, then the inserted fields, then the object's other fields in their order. */
    private static void rewrite(ObjectNode object, ObjectNode inserted) {
        ObjectNode rewritten = JsonNodes.emptyObject();
        if (object.has("name")) {
            rewritten.set("name", object.get("name"));
        }
        rewritten.setAll(inserted);
        for (Map.Entry<String, JsonNode> field : object.properties()) {
            if (!rewritten.has(field.getKey())) {
                rewritten.set(field.getKey(), field.getValue());
            }
        }
        object.removeAll();
        object.setAll(rewritten);
    }

    private static void eachObject(JsonNode list, Consumer<ObjectNode> action) {
        if (list != null && list.isArray()) {
            list.values().forEach(item -> {
                if (item instanceof ObjectNode object) {
                    action.accept(object);
                }
            });
        }
    }
}
