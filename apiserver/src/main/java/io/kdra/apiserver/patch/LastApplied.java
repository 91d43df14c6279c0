package io.kdra.apiserver.patch;

import io.kdra.apiserver.json.Json;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * kubectl's client-side apply annotation, as server-side apply by kubectl takes it over, following kube-apiserver's
 * last-applied manager and updater: a conflict on fields that the annotation set, to the values the object still
 * has, is no conflict, since kubectl owned them through client-side apply; and the annotation, where the object has
 * one, is kept equal to what kubectl applies, so that a later client-side apply computes the right patch. Another
 * field manager opts out of both.
 */
final class LastApplied {

    static final String ANNOTATION = "kubectl.kubernetes.io/last-applied-configuration";
    static final String KUBECTL = "kubectl";

    private LastApplied() {}

    /**
     * @param apiVersion the version of the apply; an annotation written in another version owns nothing
     * @return the fields the annotation sets to the values the live object has
     */
    static FieldSet ownedThroughClientSideApply(ObjectNode live, String apiVersion) {
        String text = Json.text(live, "metadata", "annotations", ANNOTATION);
        if (text == null || text.isEmpty()) {
            return FieldSet.empty();
        }
        JsonNode lastApplied;
        try {
            lastApplied = Json.parse(text.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        } catch (JacksonException e) {
            return FieldSet.empty();
        }
        if (!lastApplied.isObject() || !apiVersion.equals(Json.text(lastApplied, "apiVersion"))) {
            return FieldSet.empty();
        }
        FieldSet fields = FieldSet.leavesOf(lastApplied);
        List<String> differing = new ArrayList<>();
        for (String path : fields.paths()) {
            if (!FieldSet.valueAt(lastApplied, path).equals(FieldSet.valueAt(live, path))) {
                differing.add(path);
            }
        }
        return fields.withoutPaths(differing);
    }

    /**
     * Sets the annotation of an object that has one to the applied configuration without it, as Go writes an
     * unstructured object: compact, keys sorted.
     */
    static void syncAnnotation(ObjectNode applied, ObjectNode config) {
        String current = Json.text(applied, "metadata", "annotations", ANNOTATION);
        if (current == null || current.isEmpty()) {
            return;
        }
        ObjectNode lastApplied = config.deepCopy();
        if (Json.at(lastApplied, "metadata", "annotations") instanceof ObjectNode annotations) {
            annotations.remove(ANNOTATION);
        }
        Json.metadata(lastApplied).remove("managedFields");
        ((ObjectNode) Json.at(applied, "metadata", "annotations")).put(ANNOTATION, Json.string(sorted(lastApplied)));
    }

    private static JsonNode sorted(JsonNode node) {
        if (node instanceof ObjectNode object) {
            Map<String, JsonNode> properties = new TreeMap<>();
            object.properties().forEach(entry -> properties.put(entry.getKey(), sorted(entry.getValue())));
            ObjectNode copy = Json.object();
            properties.forEach(copy::set);
            return copy;
        }
        if (node instanceof ArrayNode array) {
            ArrayNode copy = array.arrayNode();
            array.forEach(item -> copy.add(sorted(item)));
            return copy;
        }
        return node;
    }
}
