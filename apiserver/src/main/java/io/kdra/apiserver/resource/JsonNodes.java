package io.kdra.apiserver.resource;

import java.util.HashSet;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/** JSON tree helpers shared by validation and conversion. */
final class JsonNodes {

    private JsonNodes() {
    }

    static ObjectNode emptyObject() {
        return JsonNodeFactory.instance.objectNode();
    }

    /** The node as an object; anything else (absent, null, another type) as an empty object. */
    static ObjectNode objectOrEmpty(JsonNode node) {
        return node != null && node.isObject() ? (ObjectNode) node : emptyObject();
    }

    /** A member of a possibly absent parent, or null. */
    static JsonNode get(JsonNode parent, String name) {
        return parent == null ? null : parent.get(name);
    }

    /**
     * Equality as {@code apiequality.Semantic.DeepEqual} sees two decoded objects: an absent field equals its zero
     * value (null, "", 0, false, empty list or map), and numbers compare by value.
     */
    static boolean semanticEquals(JsonNode a, JsonNode b) {
        if (isZero(a) || isZero(b)) {
            return isZero(a) && isZero(b);
        }
        if (a.isNumber() && b.isNumber()) {
            return a.decimalValue().compareTo(b.decimalValue()) == 0;
        }
        if (a.isObject() && b.isObject()) {
            Set<String> names = new HashSet<>(a.propertyNames());
            names.addAll(b.propertyNames());
            return names.stream().allMatch(name -> semanticEquals(a.get(name), b.get(name)));
        }
        if (a.isArray() && b.isArray()) {
            if (a.size() != b.size()) {
                return false;
            }
            for (int i = 0; i < a.size(); i++) {
                if (!semanticEquals(a.get(i), b.get(i))) {
                    return false;
                }
            }
            return true;
        }
        return a.equals(b);
    }

    static boolean isZero(JsonNode node) {
        if (node == null || node.isNull() || node.isMissingNode()) {
            return true;
        }
        if (node.isString()) {
            return node.stringValue().isEmpty();
        }
        if (node.isNumber()) {
            return node.decimalValue().signum() == 0;
        }
        if (node.isBoolean()) {
            return !node.booleanValue();
        }
        if (node.isArray()) {
            return node.isEmpty();
        }
        if (node.isObject()) {
            return node.values().stream().allMatch(JsonNodes::isZero);
        }
        return false;
    }
}
