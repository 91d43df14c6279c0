package io.kdra.apiserver.patch;

import io.kdra.apiserver.json.Json;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/** Reading and writing {@code metadata.managedFields}: which manager owns which fields, and through which operation. */
public final class ManagedFields {

    public static final String APPLY = "Apply";
    public static final String UPDATE = "Update";

    /** One managedFields entry. */
    public record Entry(String manager, String operation, String apiVersion, String time, FieldSet fields) {

        boolean sameOwner(String otherManager, String otherOperation) {
            return manager.equals(otherManager) && operation.equals(otherOperation);
        }
    }

    private ManagedFields() {}

    public static List<Entry> read(JsonNode object) {
        List<Entry> entries = new ArrayList<>();
        for (JsonNode node : Json.at(object, "metadata", "managedFields")) {
            entries.add(new Entry(node.path("manager").asString(""), node.path("operation").asString(UPDATE),
                    node.path("apiVersion").asString(""), node.path("time").asString(""),
                    FieldSet.fromFieldsV1(node.path("fieldsV1"))));
        }
        return entries;
    }

    public static void write(ObjectNode object, List<Entry> entries) {
        ObjectNode metadata = Json.metadata(object);
        if (entries.isEmpty()) {
            metadata.remove("managedFields");
            return;
        }
        ArrayNode array = metadata.putArray("managedFields");
        for (Entry entry : entries) {
            ObjectNode node = array.addObject();
            node.put("manager", entry.manager());
            node.put("operation", entry.operation());
            node.put("apiVersion", entry.apiVersion());
            node.put("time", entry.time());
            node.put("fieldsType", "FieldsV1");
            node.set("fieldsV1", entry.fields().toFieldsV1());
        }
    }

    /**
     * Gives {@code fields} to the manager's entry for the operation and takes them from every other entry; entries
     * left owning nothing are dropped.
     */
    public static List<Entry> assign(List<Entry> entries, String manager, String operation, String apiVersion,
            String time, FieldSet fields, FieldSet replaceOwn) {
        List<Entry> result = new ArrayList<>();
        FieldSet own = FieldSet.empty();
        boolean found = false;
        for (Entry entry : entries) {
            if (entry.sameOwner(manager, operation)) {
                own = replaceOwn != null ? replaceOwn : entry.fields().union(fields);
                found = true;
                continue;
            }
            FieldSet remaining = entry.fields().minus(fields);
            if (!remaining.isEmpty()) {
                result.add(new Entry(entry.manager(), entry.operation(), entry.apiVersion(), entry.time(), remaining));
            }
        }
        if (!found) {
            own = replaceOwn != null ? replaceOwn : fields;
        }
        if (!own.isEmpty()) {
            int position = found ? Math.min(indexOf(entries, manager, operation), result.size()) : result.size();
            result.add(position, new Entry(manager, operation, apiVersion, time, own));
        }
        return result;
    }

    private static int indexOf(List<Entry> entries, String manager, String operation) {
        for (int i = 0; i < entries.size(); i++) {
            if (entries.get(i).sameOwner(manager, operation)) {
                return i;
            }
        }
        return entries.size();
    }
}
