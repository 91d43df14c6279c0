package io.kdra.apiserver.patch;

import io.kdra.apiserver.api.ApiException;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/** RFC 6902 JSON patch: add, remove, replace, move, copy and test on a JSON tree. */
public final class JsonPatch {

    private JsonPatch() {}

    /**
     * @param target modified in place
     * @return the patched document (the root itself may be replaced)
     * @throws ApiException 422 when an operation cannot be applied, 400 when the patch is malformed
     */
    public static JsonNode apply(JsonNode target, JsonNode patch) {
        if (!patch.isArray()) {
            throw ApiException.badRequest("json: cannot unmarshal object into Go value of type jsonpatch.Patch");
        }
        JsonNode document = target;
        for (JsonNode operation : patch) {
            document = applyOne(document, operation);
        }
        return document;
    }

    private static JsonNode applyOne(JsonNode document, JsonNode operation) {
        String op = operation.path("op").asString("");
        String path = operation.path("path").asString(null);
        if (path == null) {
            throw failed("missing 'path' in '" + op + "' operation");
        }
        switch (op) {
            case "add":
                return add(document, path, value(operation));
            case "remove":
                return remove(document, path);
            case "replace":
                get(document, path, "replace");
                return add(remove(document, path), path, value(operation));
            case "move": {
                String from = operation.path("from").asString("");
                JsonNode moved = get(document, from, "move");
                return add(remove(document, from), path, moved);
            }
            case "copy": {
                String from = operation.path("from").asString("");
                return add(document, path, get(document, from, "copy").deepCopy());
            }
            case "test":
                if (!get(document, path, "test").equals(JsonPatch::compareValues, value(operation))) {
                    throw failed("testing value " + path + " failed: test failed");
                }
                return document;
            default:
                throw failed("Unexpected kind: " + op);
        }
    }

    /** Numbers compare by value, as Go's decoding makes every JSON number a float64: 4 equals 4.0 and a long 4. */
    private static int compareValues(JsonNode a, JsonNode b) {
        if (a.isNumber() && b.isNumber()) {
            return a.decimalValue().compareTo(b.decimalValue());
        }
        return a.equals(b) ? 0 : 1;
    }

    private static JsonNode value(JsonNode operation) {
        JsonNode value = operation.get("value");
        if (value == null) {
            throw failed("missing value");
        }
        return value.deepCopy();
    }

    private static JsonNode add(JsonNode document, String path, JsonNode value) {
        if (path.isEmpty()) {
            return value;
        }
        List<String> tokens = tokens(path);
        JsonNode parent = parent(document, tokens, path, "add");
        String last = tokens.get(tokens.size() - 1);
        if (parent instanceof ObjectNode object) {
            object.set(last, value);
        } else if (parent instanceof ArrayNode array) {
            if (last.equals("-")) {
                array.add(value);
            } else {
                int index = index(last, array.size() + 1, path);
                array.insert(index, value);
            }
        } else {
            throw failed("add operation does not apply: doc is missing path: \"" + path + "\": missing value");
        }
        return document;
    }

    private static JsonNode remove(JsonNode document, String path) {
        List<String> tokens = tokens(path);
        JsonNode parent = parent(document, tokens, path, "remove");
        String last = tokens.get(tokens.size() - 1);
        if (parent instanceof ObjectNode object && object.has(last)) {
            object.remove(last);
        } else if (parent instanceof ArrayNode array) {
            array.remove(index(last, array.size(), path));
        } else {
            throw failed("remove operation does not apply: doc is missing path: \"" + path + "\": missing value");
        }
        return document;
    }

    private static JsonNode get(JsonNode document, String path, String op) {
        JsonNode node = document;
        for (String token : tokens(path)) {
            node = child(node, token);
            if (node == null) {
                throw failed(op + " operation does not apply: doc is missing path: \"" + path + "\": missing value");
            }
        }
        return node;
    }

    private static JsonNode parent(JsonNode document, List<String> tokens, String path, String op) {
        JsonNode node = document;
        for (String token : tokens.subList(0, tokens.size() - 1)) {
            node = child(node, token);
            if (node == null) {
                throw failed(op + " operation does not apply: doc is missing path: \"" + path + "\": missing value");
            }
        }
        return node;
    }

    private static JsonNode child(JsonNode node, String token) {
        if (node.isObject()) {
            return node.get(token);
        }
        if (node.isArray()) {
            try {
                int index = Integer.parseInt(token);
                return index >= 0 && index < node.size() ? node.get(index) : null;
            } catch (NumberFormatException e) {
                return null;
            }
        }
        return null;
    }

    private static int index(String token, int bound, String path) {
        try {
            int index = Integer.parseInt(token);
            if (index >= 0 && index < bound) {
                return index;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw failed("Unable to access invalid index: " + token + " in path \"" + path + "\"");
    }

    private static List<String> tokens(String path) {
        if (!path.startsWith("/")) {
            throw failed("JSON pointer must be empty or start with a \"/\": \"" + path + "\"");
        }
        List<String> tokens = new ArrayList<>();
        for (String raw : path.substring(1).split("/", -1)) {
            tokens.add(raw.replace("~1", "/").replace("~0", "~"));
        }
        return tokens;
    }

    private static ApiException failed(String why) {
        return ApiException.of(422, "Invalid", "the server rejected our request due to an error in our request: " + why,
                null);
    }
}
