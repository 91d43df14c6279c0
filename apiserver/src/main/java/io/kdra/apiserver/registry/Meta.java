package io.kdra.apiserver.registry;

import io.kdra.apiserver.json.Json;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/** Reading and writing the {@code metadata} fields the server manages. */
public final class Meta {

    public static final String ORPHAN_FINALIZER = "orphan";
    private static final String RESOURCE_VERSION = "resourceVersion";
    private static final String MANAGED_FIELDS = "managedFields";
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
     * @return whether the objects are equal but for metadata.resourceVersion and the times of metadata.managedFields:
     *     as in kube-apiserver, a write that changes only when managers wrote is a no-op, one that changes who owns
     *     what is not. Compares in place, without copying either object.
     */
    public static boolean equalApartFromVolatileFields(ObjectNode a, ObjectNode b) {
        if (a.size() != b.size()) {
            return false;
        }
        for (Map.Entry<String, JsonNode> field : a.properties()) {
            JsonNode other = b.get(field.getKey());
            boolean equal = field.getKey().equals("metadata") && field.getValue().isObject() && other != null
                    && other.isObject() ? equalMetadata(field.getValue(), other) : field.getValue().equals(other);
            if (!equal) {
                return false;
            }
        }
        return true;
    }

    private static boolean equalMetadata(JsonNode a, JsonNode b) {
        int compared = 0;
        for (Map.Entry<String, JsonNode> field : a.properties()) {
            String name = field.getKey();
            if (name.equals(RESOURCE_VERSION)) {
                continue;
            }
            boolean equal = name.equals(MANAGED_FIELDS) ? equalApartFromTimes(field.getValue(), b.get(name))
                    : field.getValue().equals(b.get(name));
            if (!equal) {
                return false;
            }
            compared++;
        }
        int others = b.has(RESOURCE_VERSION) ? b.size() - 1 : b.size();
        return compared == others;
    }

    private static boolean equalApartFromTimes(JsonNode entries, JsonNode others) {
        if (others == null || !entries.isArray() || !others.isArray() || entries.size() != others.size()) {
            return entries.equals(others);
        }
        for (int i = 0; i < entries.size(); i++) {
            JsonNode entry = entries.get(i);
            JsonNode other = others.get(i);
            if (!entry.isObject() || !other.isObject()) {
                if (!entry.equals(other)) {
                    return false;
                }
                continue;
            }
            int compared = 0;
            for (Map.Entry<String, JsonNode> field : entry.properties()) {
                if (field.getKey().equals("time")) {
                    continue;
                }
                if (!field.getValue().equals(other.get(field.getKey()))) {
                    return false;
                }
                compared++;
            }
            if (compared != (other.has("time") ? other.size() - 1 : other.size())) {
                return false;
            }
        }
        return true;
    }
}
