package io.kdra.apiserver.resource;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.Function;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Upstream's {@code validateSlice}, {@code validateSet} and {@code validateMap}: a size limit that, when exceeded,
 * is the only error reported for the field (protection against huge inputs), then per-item checks, then duplicates.
 */
final class CollectionChecks {

    /** A negative limit means "no limit". */
    static final int UNLIMITED = -1;

    private CollectionChecks() {
    }

    static void list(ValidationRun run, List<JsonNode> items, int maxSize, FieldPath path,
                     BiConsumer<JsonNode, FieldPath> itemCheck) {
        if (tooMany(run, items.size(), maxSize, path)) {
            return;
        }
        for (int i = 0; i < items.size(); i++) {
            itemCheck.accept(items.get(i), path.index(i));
        }
    }

    /** Like {@link #list}, and each item's key (also the reported bad value) must be unique. */
    static void set(ValidationRun run, List<JsonNode> items, int maxSize, FieldPath path,
                    BiConsumer<JsonNode, FieldPath> itemCheck, Function<JsonNode, JsonNode> key) {
        if (tooMany(run, items.size(), maxSize, path)) {
            return;
        }
        for (int i = 0; i < items.size(); i++) {
            itemCheck.accept(items.get(i), path.index(i));
        }
        Set<JsonNode> seen = new HashSet<>();
        for (int i = 0; i < items.size(); i++) {
            JsonNode itemKey = key.apply(items.get(i));
            if (!seen.add(itemKey)) {
                run.add(FieldErrors.duplicate(path.index(i), itemKey));
            }
        }
    }

    /** The key of a list item by one of its string fields, "" when unset, as Go reads it. */
    static Function<JsonNode, JsonNode> keyField(String name) {
        return item -> JsonNodeFactory.instance.stringNode(item.path(name).asString(""));
    }

    /** A {@code []string} field checked like {@link #list}; returns all its strings, even when there are too many. */
    static List<String> strings(ValidationRun run, JsonNode parent, String name, FieldPath parentPath, int maxSize,
                                BiConsumer<String, FieldPath> itemCheck) {
        List<String> values = run.strings(parent, name, parentPath);
        FieldPath path = parentPath.child(name);
        if (!tooMany(run, values.size(), maxSize, path)) {
            for (int i = 0; i < values.size(); i++) {
                itemCheck.accept(values.get(i), path.index(i));
            }
        }
        return values;
    }

    /** A {@code []string} field checked like {@link #set}: also each string must be unique. */
    static List<String> stringSet(ValidationRun run, JsonNode parent, String name, FieldPath parentPath, int maxSize,
                                  BiConsumer<String, FieldPath> itemCheck) {
        List<String> values = run.strings(parent, name, parentPath);
        FieldPath path = parentPath.child(name);
        if (tooMany(run, values.size(), maxSize, path)) {
            return values;
        }
        for (int i = 0; i < values.size(); i++) {
            itemCheck.accept(values.get(i), path.index(i));
        }
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < values.size(); i++) {
            if (!seen.add(values.get(i))) {
                run.add(FieldErrors.duplicate(path.index(i), values.get(i)));
            }
        }
        return values;
    }

    /**
     * Keys are checked against the map's own path (as upstream does); values against the key's path, where a long
     * key is shortened in the middle to {@code truncateKeyLength} characters.
     */
    static void map(ValidationRun run, ObjectNode map, int maxSize, int truncateKeyLength, FieldPath path,
                    BiConsumer<String, FieldPath> keyCheck, BiConsumer<JsonNode, FieldPath> valueCheck) {
        if (tooMany(run, map.size(), maxSize, path)) {
            return;
        }
        for (Map.Entry<String, JsonNode> entry : map.properties()) {
            keyCheck.accept(entry.getKey(), path);
            valueCheck.accept(entry.getValue(), path.key(truncate(entry.getKey(), truncateKeyLength)));
        }
    }

    /** Reports a size over the limit; the caller then checks nothing else of the field. */
    static boolean tooMany(ValidationRun run, int size, int maxSize, FieldPath path) {
        if (maxSize >= 0 && size > maxSize) {
            run.add(FieldErrors.tooMany(path, size, maxSize));
            return true;
        }
        return false;
    }

    private static String truncate(String key, int maxLength) {
        int limit = Math.max(maxLength, 16);
        if (key.length() <= limit) {
            return key;
        }
        int remaining = limit - 3;
        return key.substring(0, (remaining + 1) / 2) + "..." + key.substring(key.length() - remaining / 2);
    }
}
