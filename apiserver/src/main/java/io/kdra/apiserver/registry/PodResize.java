package io.kdra.apiserver.registry;

import io.kdra.apiserver.api.FieldError;
import io.kdra.apiserver.json.Json;
import io.kdra.kube.FeatureGates;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.databind.node.StringNode;

/**
 * What {@code pods/resize} may change (kube-apiserver's resize strategy and {@code ValidatePodResize}): the
 * {@code resources} of containers and init containers and the pod-level {@code resources}; of those only CPU and
 * memory, and not so that the pod's QoS class changes.
 */
final class PodResize {

    private static final List<String> CONTAINER_LISTS = List.of("containers", "initContainers");
    private static final List<String> MUTABLE_RESOURCES = List.of("cpu", "memory");

    private PodResize() {}

    /** The current pod with the proposed pod's resources, and its resourceVersion and UID as preconditions. */
    static ObjectNode resized(ObjectNode current, ObjectNode proposed) {
        ObjectNode next = current.deepCopy();
        ObjectNode spec = Json.ensureObject(next, "spec");
        JsonNode proposedSpec = proposed.path("spec");
        for (String list : CONTAINER_LISTS) {
            for (JsonNode container : spec.path(list)) {
                JsonNode resources = resourcesOf(proposedSpec.path(list), Json.text(container, "name"));
                if (resources == null) {
                    ((ObjectNode) container).remove("resources");
                } else {
                    ((ObjectNode) container).set("resources", resources.deepCopy());
                }
            }
        }
        copy(proposedSpec, spec, "resources");
        ObjectNode metadata = Json.metadata(next);
        JsonNode proposedMetadata = proposed.path("metadata");
        for (String field : List.of("resourceVersion", "uid")) {
            copy(proposedMetadata, metadata, field);
        }
        return next;
    }

    /** The errors of a resize from {@code old} to {@code pod}. */
    static List<FieldError> validate(ObjectNode pod, ObjectNode old, FeatureGates gates) {
        List<FieldError> errors = new ArrayList<>();
        for (String list : CONTAINER_LISTS) {
            JsonNode containers = pod.path("spec").path(list);
            for (int i = 0; i < containers.size(); i++) {
                JsonNode container = containers.get(i);
                JsonNode before = resourcesOf(old.path("spec").path(list), Json.text(container, "name"));
                immutableResources(container.path("resources"), before == null ? null : before,
                        "spec." + list + "[" + i + "].resources", errors);
            }
        }
        immutableResources(pod.path("spec").path("resources"), old.path("spec").get("resources"), "spec.resources",
                errors);
        String qos = PodQos.of(old, gates);
        if (errors.isEmpty() && !qos.equals(PodQos.of(pod, gates))) {
            errors.add(new FieldError(FieldError.Type.INVALID, "spec", StringNode.valueOf(qos),
                    "Pod QOS Class may not change as a result of resizing"));
        }
        return errors;
    }

    /** Resources other than CPU and memory must stay as they were. */
    private static void immutableResources(JsonNode resources, JsonNode before, String path, List<FieldError> errors) {
        for (String kind : List.of("requests", "limits")) {
            JsonNode now = resources.path(kind);
            JsonNode then = before == null ? null : before.path(kind);
            for (Map.Entry<String, JsonNode> entry : now.properties()) {
                if (MUTABLE_RESOURCES.contains(entry.getKey())) {
                    continue;
                }
                JsonNode previous = then == null ? null : then.get(entry.getKey());
                if (!Objects.equals(previous, entry.getValue())) {
                    errors.add(new FieldError(FieldError.Type.FORBIDDEN, path + "." + kind + "[" + entry.getKey()
                            + "]", null, "only cpu and memory resources are mutable"));
                }
            }
        }
    }

    private static JsonNode resourcesOf(JsonNode containers, String name) {
        for (JsonNode container : containers) {
            if (Objects.equals(Json.text(container, "name"), name)) {
                JsonNode resources = container.get("resources");
                return resources == null || resources.isNull() ? null : resources;
            }
        }
        return null;
    }

    private static void copy(JsonNode from, ObjectNode to, String field) {
        JsonNode value = from.get(field);
        if (value == null || value.isNull()) {
            to.remove(field);
        } else {
            to.set(field, value.deepCopy());
        }
    }
}
