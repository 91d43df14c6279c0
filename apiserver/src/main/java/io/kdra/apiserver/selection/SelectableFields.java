package io.kdra.apiserver.selection;

import io.kdra.apiserver.api.ResourceType;
import io.kdra.apiserver.json.Json;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** The fields each resource can be selected by, with the values kube-apiserver derives for them. */
public final class SelectableFields {

    private static final List<String> EVENT_FIELDS = List.of("involvedObject.kind", "involvedObject.namespace",
            "involvedObject.name", "involvedObject.uid", "involvedObject.apiVersion", "involvedObject.resourceVersion",
            "involvedObject.fieldPath", "reason", "reportingComponent", "source", "type");

    private static final Map<String, List<String>> BY_RESOURCE = Map.of(
            "/pods", List.of("spec.nodeName", "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName",
                    "spec.hostNetwork", "status.phase", "status.podIP", "status.nominatedNodeName"),
            "/events", EVENT_FIELDS,
            "/nodes", List.of("spec.unschedulable"),
            "/namespaces", List.of("status.phase"),
            "/secrets", List.of("type"),
            "resource.k8s.io/resourceslices", List.of("spec.driver", "spec.nodeName", "spec.pool.name"),
            "apps/replicasets", List.of("status.replicas"));

    private SelectableFields() {}

    static boolean supports(ResourceType type, String field) {
        if (field.equals("metadata.name") || field.equals("metadata.namespace")) {
            return true;
        }
        return BY_RESOURCE.getOrDefault(type.storageKey(), List.of()).contains(field);
    }

    static String unsupportedMessage(ResourceType type, String field) {
        if (type.group().isEmpty()) {
            return "field label not supported: " + field;
        }
        if (BY_RESOURCE.containsKey(type.storageKey())) {
            return String.format("field label not supported for %s/%s, Kind=%s: %s", type.group(),
                    type.storageVersion(), type.kind(), field);
        }
        return String.format("\"%s\" is not a known field selector: only \"metadata.name\", \"metadata.namespace\"", field);
    }

    /**
     * @return the field's value as a selector compares it: absent fields are empty, booleans "true"/"false"; an
     *     event's {@code source} is its source component, or else its reporting component, as kube-apiserver has it
     */
    static String value(ResourceType type, ObjectNode object, String field) {
        if (field.equals("source") && type.storageKey().equals("/events")) {
            String component = textOf(Json.at(object, "source", "component"));
            return component.isEmpty() ? textOf(object.path("reportingComponent")) : component;
        }
        if (field.equals("metadata.namespace") && !type.namespaced()) {
            return "";
        }
        return textOf(Json.at(object, field.split("\\.")));
    }

    private static String textOf(JsonNode node) {
        if (node.isMissingNode() || node.isNull()) {
            return "";
        }
        return node.isString() ? node.stringValue() : node.asString();
    }
}
