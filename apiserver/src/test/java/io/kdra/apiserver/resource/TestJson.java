package io.kdra.apiserver.resource;

import tools.jackson.core.JsonPointer;
import tools.jackson.core.json.JsonReadFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/** Relaxed JSON for test objects (single quotes, unquoted names) and copy-on-write edits by JSON pointer. */
final class TestJson {

    static final JsonMapper MAPPER = JsonMapper.builder()
            .enable(JsonReadFeature.ALLOW_SINGLE_QUOTES, JsonReadFeature.ALLOW_UNQUOTED_PROPERTY_NAMES)
            .build();

    private TestJson() {
    }

    static JsonNode parse(String json) {
        return MAPPER.readTree(json);
    }

    static ObjectNode object(String json) {
        return (ObjectNode) parse(json);
    }

    /** A copy of {@code base} with the value at {@code pointer} replaced or added (a list index may be "-"). */
    static ObjectNode with(ObjectNode base, String pointer, String json) {
        return with(base, pointer, parse(json));
    }

    static ObjectNode with(ObjectNode base, String pointer, JsonNode value) {
        ObjectNode copy = base.deepCopy();
        JsonPointer path = JsonPointer.compile(pointer);
        JsonNode parent = copy.at(path.head());
        String last = path.last().getMatchingProperty();
        if (parent instanceof ArrayNode array) {
            if (last.equals("-")) {
                array.add(value);
            } else {
                array.set(Integer.parseInt(last), value);
            }
        } else {
            ((ObjectNode) parent).set(last, value);
        }
        return copy;
    }

    static ObjectNode without(ObjectNode base, String pointer) {
        ObjectNode copy = base.deepCopy();
        JsonPointer path = JsonPointer.compile(pointer);
        JsonNode parent = copy.at(path.head());
        if (parent instanceof ArrayNode array) {
            array.remove(Integer.parseInt(path.last().getMatchingProperty()));
        } else {
            ((ObjectNode) parent).remove(path.last().getMatchingProperty());
        }
        return copy;
    }

    /** A JSON array of {@code count} copies of {@code item}. */
    static ArrayNode repeat(int count, String item) {
        ArrayNode array = MAPPER.createArrayNode();
        for (int i = 0; i < count; i++) {
            array.add(parse(item));
        }
        return array;
    }
}
