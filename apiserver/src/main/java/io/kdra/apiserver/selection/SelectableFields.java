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

    /**
     * Per resource that names fields otherwise than the objects it serves are stored: its labels and the stored
     * fields they select. events.k8s.io Events are selected by their own names, never the core ones (upstream
     * {@code pkg/apis/events/v1} field label conversion), on the core Events they are stored as.
     */
    private static final Map<String, Map<String, String>> LABEL_CONVERSIONS = Map.of(
            "events.events.k8s.io", Map.ofEntries(
                    Map.entry("regarding.kind", "involvedObject.kind"),
                    Map.entry("regarding.namespace", "involvedObject.namespace"),
                    Map.entry("regarding.name", "involvedObject.name"),
                    Map.entry("regarding.uid", "involvedObject.uid"),
                    Map.entry("regarding.apiVersion", "involvedObject.apiVersion"),
                    Map.entry("regarding.resourceVersion", "involvedObject.resourceVersion"),
                    Map.entry("regarding.fieldPath", "involvedObject.fieldPath"),
                    Map.entry("reportingController", "reportingComponent"),
                    Map.entry("reason", "reason"),
                    Map.entry("source", "source"),
                    Map.entry("type", "type")));

    private SelectableFields() {}

    /** @return the field of the stored objects the label selects, or null when the resource does not support it */
    static String storedField(ResourceType type, String label) {
        if (label.equals("metadata.name") || label.equals("metadata.namespace")) {
            return label;
        }
        Map<String, String> conversion = LABEL_CONVERSIONS.get(type.groupResource());
        if (conversion != null) {
            return conversion.get(label);
        }
        return BY_RESOURCE.getOrDefault(type.storageKey(), List.of()).contains(label) ? label : null;
    }

    static String unsupportedMessage(ResourceType type, String field) {
        if (type.group().isEmpty() || LABEL_CONVERSIONS.containsKey(type.groupResource())) {
            return "field label not supported: " + field;
        }
        if (BY_RESOURCE.containsKey(type.storageKey())) {
            return String.format("field label not supported for %s/%s, Kind=%s: %s", type.group(),
                    type.storageVersion(), type.kind(), field);
        }
        return String.format("\"%s\" is not a known field selector: only \"metadata.name\", \"metadata.namespace\"", field);
    }

    /** @return the field's names, to read its value with {@link #value} */
    static String[] path(String field) {
        return field.split("\\.");
    }

    /**
     * @param field a field of the stored objects, as {@link #storedField} gives it
     * @param path the field's names, as {@link #path} gives them
     * @return the field's value as a selector compares it: absent fields are empty, booleans "true"/"false"; an
     *     event's {@code source} is its source component, or else its reporting component, as kube-apiserver has it
     */
    static String value(ResourceType type, ObjectNode object, String field, String[] path) {
        if (field.equals("source") && type.storageKey().equals("/events")) {
            String component = textOf(Json.at(object, "source", "component"));
            return component.isEmpty() ? textOf(object.path("reportingComponent")) : component;
        }
        if (field.equals("metadata.namespace") && !type.namespaced()) {
            return "";
        }
        return textOf(Json.at(object, path));
    }

    private static String textOf(JsonNode node) {
        if (node.isMissingNode() || node.isNull()) {
            return "";
        }
        return node.isString() ? node.stringValue() : node.asString();
    }
}
