package io.kdra.apiserver.patch;

import io.kdra.apiserver.json.Json;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
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

    /** The string fields of an entry as {@link #write} orders them; {@code fieldsV1} follows. */
    private static final List<String> WRITTEN_FIELDS = List.of("manager", "operation", "apiVersion", "time",
            "fieldsType");

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
            array.add(node(entry));
        }
    }

    private static ObjectNode node(Entry entry) {
        ObjectNode node = Json.object();
        node.put("manager", entry.manager());
        node.put("operation", entry.operation());
        node.put("apiVersion", entry.apiVersion());
        node.put("time", entry.time());
        node.put("fieldsType", "FieldsV1");
        node.set("fieldsV1", entry.fields().toFieldsV1());
        return node;
    }

    /**
     * Records an Update as {@link #read}, {@link #assign} and {@link #write} together do: the manager's Update entry
     * gets {@code own} of the fields it owned, every other entry loses the changed fields. An entry the change does
     * not touch, and whose JSON is what writing it would give, keeps its JSON: most writes touch one or two entries
     * of several, and reading and writing the others' fieldsV1 was most of the cost.
     */
    public static void recordUpdate(ObjectNode object, String manager, String apiVersion, String time,
            FieldSet changed, UnaryOperator<FieldSet> own) {
        ArrayNode result = Json.array();
        FieldSet owned = FieldSet.empty();
        int ownIndex = -1;
        int index = 0;
        for (JsonNode node : Json.at(object, "metadata", "managedFields")) {
            String entryManager = node.path("manager").asString("");
            String operation = node.path("operation").asString(UPDATE);
            if (entryManager.equals(manager) && operation.equals(UPDATE)) {
                owned = FieldSet.fromFieldsV1(node.path("fieldsV1"));
                ownIndex = ownIndex < 0 ? index : ownIndex;
            } else if (asWritten(node) && changed.noneIn(node.get("fieldsV1"))) {
                result.add(node);
            } else {
                FieldSet remaining = FieldSet.fromFieldsV1(node.path("fieldsV1")).minus(changed);
                if (!remaining.isEmpty()) {
                    result.add(node(new Entry(entryManager, operation, node.path("apiVersion").asString(""),
                            node.path("time").asString(""), remaining)));
                }
            }
            index++;
        }
        FieldSet fields = own.apply(owned);
        if (!fields.isEmpty()) {
            int position = ownIndex < 0 ? result.size() : Math.min(ownIndex, result.size());
            result.insert(position, node(new Entry(manager, UPDATE, apiVersion, time, fields)));
        }
        ObjectNode metadata = Json.metadata(object);
        if (result.isEmpty()) {
            metadata.remove("managedFields");
        } else {
            metadata.set("managedFields", result);
        }
    }

    /** @return whether the entry is as {@link #write} writes one, so that writing it again would change nothing */
    private static boolean asWritten(JsonNode node) {
        if (!node.isObject() || node.size() != WRITTEN_FIELDS.size() + 1) {
            return false;
        }
        Iterator<Map.Entry<String, JsonNode>> properties = node.properties().iterator();
        for (String field : WRITTEN_FIELDS) {
            Map.Entry<String, JsonNode> property = properties.next();
            if (!property.getKey().equals(field) || !property.getValue().isString()) {
                return false;
            }
        }
        Map.Entry<String, JsonNode> fields = properties.next();
        return node.get("fieldsType").stringValue().equals("FieldsV1") && fields.getKey().equals("fieldsV1")
                && !fields.getValue().isEmpty() && FieldSet.isWrittenForm(fields.getValue());
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
