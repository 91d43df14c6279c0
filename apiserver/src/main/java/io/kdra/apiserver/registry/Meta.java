package io.kdra.apiserver.registry;

import io.kdra.apiserver.json.Json;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/** Reading and writing the {@code metadata} fields the server manages. */
public final class Meta {

    public static final String ORPHAN_FINALIZER = "orphan";
    public static final String FOREGROUND_FINALIZER = "foregroundDeletion";

    private Meta() {}

    /** @return an RFC 3339 timestamp with seconds, as metav1.Time serialises */
    public static String timestamp(Instant instant) {
        return DateTimeFormatter.ISO_INSTANT.format(instant.truncatedTo(ChronoUnit.SECONDS));
    }

    public static String name(JsonNode object) {
        return Json.text(object, "metadata", "name");
    }

    public static String namespace(JsonNode object) {
        return Json.text(object, "metadata", "namespace");
    }

    public static String uid(JsonNode object) {
        return Json.text(object, "metadata", "uid");
    }

    public static String resourceVersion(JsonNode object) {
        return Json.text(object, "metadata", "resourceVersion");
    }

    public static boolean isDeleting(JsonNode object) {
        return Json.text(object, "metadata", "deletionTimestamp") != null;
    }

    public static List<String> finalizers(JsonNode object) {
        return strings(Json.at(object, "metadata", "finalizers"));
    }

    public static List<String> strings(JsonNode array) {
        List<String> values = new ArrayList<>();
        for (JsonNode value : array) {
            values.add(value.asString());
        }
        return values;
    }

    public static void setFinalizers(ObjectNode object, List<String> finalizers) {
        ObjectNode metadata = Json.metadata(object);
        if (finalizers.isEmpty()) {
            metadata.remove("finalizers");
        } else {
            ArrayNode array = metadata.putArray("finalizers");
            finalizers.forEach(array::add);
        }
    }

    public static long generation(JsonNode object) {
        return Json.at(object, "metadata", "generation").asLong(0);
    }

    /**
     * @return the object without metadata.resourceVersion and the times of its managedFields, for no-op detection:
     *     as in kube-apiserver, a write that changes only when managers wrote is none, one that changes who owns what
     *     is one
     */
    public static ObjectNode withoutVolatileFields(ObjectNode object) {
        ObjectNode copy = object.deepCopy();
        ObjectNode metadata = Json.metadata(copy);
        metadata.remove("resourceVersion");
        for (JsonNode entry : metadata.path("managedFields")) {
            if (entry instanceof ObjectNode fields) {
                fields.remove("time");
            }
        }
        return copy;
    }
}
