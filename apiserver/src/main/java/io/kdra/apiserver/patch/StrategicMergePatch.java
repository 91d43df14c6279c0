package io.kdra.apiserver.patch;

import io.kdra.apiserver.api.ApiException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Strategic merge patch as kube-apiserver applies it to built-in kinds: like a merge patch, except that lists with
 * a merge key ({@link MergeKeys}) are merged item by item and set lists are unioned; the directives {@code $patch}
 * (replace, delete, merge), {@code $retainKeys}, {@code $setElementOrder/<list>} and
 * {@code $deleteFromPrimitiveList/<list>} are honoured.
 */
public final class StrategicMergePatch {

    private static final String PATCH = "$patch";
    private static final String RETAIN_KEYS = "$retainKeys";
    private static final String SET_ORDER = "$setElementOrder/";
    private static final String DELETE_FROM_LIST = "$deleteFromPrimitiveList/";

    private StrategicMergePatch() {}

    /** @return the patched object; the original may be modified */
    public static JsonNode apply(JsonNode original, JsonNode patch) {
        if (!patch.isObject()) {
            throw ApiException.badRequest("strategic merge patch must be a JSON object");
        }
        JsonNode result = mergeObject(original, (ObjectNode) patch);
        return result == null ? JsonNodeFactory.instance.objectNode() : result;
    }

    private static JsonNode mergeObject(JsonNode original, ObjectNode patch) {
        String directive = patch.path(PATCH).asString(null);
        if ("delete".equals(directive)) {
            return null;
        }
        if ("replace".equals(directive)) {
            ObjectNode replacement = patch.deepCopy();
            replacement.remove(PATCH);
            return replacement;
        }
        ObjectNode result = original != null && original.isObject() ? (ObjectNode) original
                : JsonNodeFactory.instance.objectNode();
        for (Map.Entry<String, JsonNode> entry : patch.properties()) {
            String key = entry.getKey();
            JsonNode value = entry.getValue();
            if (key.equals(PATCH) || key.equals(RETAIN_KEYS) || key.startsWith(SET_ORDER)
                    || key.startsWith(DELETE_FROM_LIST)) {
                continue;
            }
            if (value.isNull()) {
                result.remove(key);
            } else if (value.isObject()) {
                JsonNode merged = mergeObject(result.get(key), (ObjectNode) value);
                if (merged == null) {
                    result.remove(key);
                } else {
                    result.set(key, merged);
                }
            } else if (value.isArray()) {
                result.set(key, mergeList(result.get(key), (ArrayNode) value, key));
            } else {
                result.set(key, value.deepCopy());
            }
        }
        for (Map.Entry<String, JsonNode> entry : patch.properties()) {
            if (entry.getKey().startsWith(DELETE_FROM_LIST)) {
                deleteFromList(result, entry.getKey().substring(DELETE_FROM_LIST.length()), entry.getValue());
            }
        }
        for (Map.Entry<String, JsonNode> entry : patch.properties()) {
            if (entry.getKey().startsWith(SET_ORDER)) {
                String field = entry.getKey().substring(SET_ORDER.length());
                if (result.get(field) instanceof ArrayNode list) {
                    result.set(field, reorder(list, entry.getValue(), MergeKeys.keyOf(field)));
                }
            }
        }
        JsonNode retain = patch.get(RETAIN_KEYS);
        if (retain != null && retain.isArray()) {
            Set<String> keep = new HashSet<>();
            retain.forEach(k -> keep.add(k.asString()));
            for (String name : new ArrayList<>(result.propertyNames())) {
                if (!keep.contains(name)) {
                    result.remove(name);
                }
            }
        }
        return result;
    }

    private static JsonNode mergeList(JsonNode original, ArrayNode patch, String field) {
        String mergeKey = MergeKeys.keyOf(field);
        if (mergeKey != null) {
            return mergeKeyedList(original, patch, mergeKey);
        }
        if (MergeKeys.isSet(field)) {
            ArrayNode result = original instanceof ArrayNode array ? array : JsonNodeFactory.instance.arrayNode();
            for (JsonNode value : patch) {
                if (!contains(result, value)) {
                    result.add(value.deepCopy());
                }
            }
            return result;
        }
        return patch.deepCopy();
    }

    private static JsonNode mergeKeyedList(JsonNode original, ArrayNode patch, String mergeKey) {
        for (JsonNode item : patch) {
            if ("replace".equals(item.path(PATCH).asString(null)) && item.size() == 1) {
                ArrayNode replacement = JsonNodeFactory.instance.arrayNode();
                for (JsonNode other : patch) {
                    if (other != item) {
                        replacement.add(other.deepCopy());
                    }
                }
                return replacement;
            }
        }
        ArrayNode result = original instanceof ArrayNode array ? array : JsonNodeFactory.instance.arrayNode();
        for (JsonNode item : patch) {
            if (!item.isObject() || !item.has(mergeKey)) {
                throw ApiException.badRequest(String.format(
                        "map: %s does not contain declared merge key: %s", item, mergeKey));
            }
            int index = indexOf(result, mergeKey, item.get(mergeKey));
            if ("delete".equals(item.path(PATCH).asString(null))) {
                if (index >= 0) {
                    result.remove(index);
                }
            } else if (index >= 0) {
                result.set(index, mergeObject(result.get(index), (ObjectNode) item));
            } else {
                ObjectNode added = ((ObjectNode) item).deepCopy();
                added.remove(PATCH);
                result.add(mergeObject(null, added));
            }
        }
        return result;
    }

    private static void deleteFromList(ObjectNode result, String field, JsonNode values) {
        if (result.get(field) instanceof ArrayNode list) {
            for (int i = list.size() - 1; i >= 0; i--) {
                if (contains(values, list.get(i))) {
                    list.remove(i);
                }
            }
        }
    }

    private static ArrayNode reorder(ArrayNode list, JsonNode order, String mergeKey) {
        List<JsonNode> remaining = new ArrayList<>();
        list.forEach(remaining::add);
        ArrayNode result = JsonNodeFactory.instance.arrayNode();
        for (JsonNode wanted : order) {
            JsonNode wantedKey = mergeKey == null ? wanted : wanted.get(mergeKey);
            for (int i = 0; i < remaining.size(); i++) {
                JsonNode item = remaining.get(i);
                JsonNode itemKey = mergeKey == null ? item : item.get(mergeKey);
                if (itemKey != null && itemKey.equals(wantedKey)) {
                    result.add(item);
                    remaining.remove(i);
                    break;
                }
            }
        }
        remaining.forEach(result::add);
        return result;
    }

    private static int indexOf(ArrayNode list, String key, JsonNode value) {
        for (int i = 0; i < list.size(); i++) {
            if (value.equals(list.get(i).get(key))) {
                return i;
            }
        }
        return -1;
    }

    private static boolean contains(JsonNode list, JsonNode value) {
        for (JsonNode item : list) {
            if (item.equals(value)) {
                return true;
            }
        }
        return false;
    }
}
