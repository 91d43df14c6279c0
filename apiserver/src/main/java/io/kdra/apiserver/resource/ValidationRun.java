package io.kdra.apiserver.resource;

import io.kdra.apiserver.api.FieldError;
import io.kdra.kube.Quantity;
import io.kdra.kube.ExpressionChecker;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * One validation pass over one object: collects the errors and reads fields the way Go decodes them into typed
 * structs. An absent field and a JSON {@code null} read as Go's zero value (or {@code null} for pointers, slices,
 * maps); a value of the wrong JSON type is reported as a type error and then read as absent, so that validation
 * goes on and reports everything else too.
 */
final class ValidationRun {

    private final List<FieldError> errors = new ArrayList<>();
    private final ExpressionChecker expressions;

    ValidationRun(ExpressionChecker expressions) {
        this.expressions = expressions;
    }

    ExpressionChecker expressions() {
        return expressions;
    }

    void add(FieldError error) {
        errors.add(error);
    }

    List<FieldError> errors() {
        return List.copyOf(errors);
    }

    /** A Go {@code string} field: "" when absent. */
    String string(JsonNode parent, String name, FieldPath path) {
        String value = stringPointer(parent, name, path);
        return value == null ? "" : value;
    }

    /** A Go {@code *string} field: null when absent. */
    String stringPointer(JsonNode parent, String name, FieldPath path) {
        JsonNode value = typed(parent, name, path, JsonNode::isString, "string");
        return value == null ? null : value.stringValue();
    }

    /** A Go {@code int64} field: 0 when absent. */
    long int64(JsonNode parent, String name, FieldPath path) {
        JsonNode value = typed(parent, name, path, node -> node.isIntegralNumber() && node.canConvertToLong(),
                "int64");
        return value == null ? 0 : value.longValue();
    }

    /** A Go {@code *bool} field: null when absent. */
    Boolean boolPointer(JsonNode parent, String name, FieldPath path) {
        JsonNode value = typed(parent, name, path, JsonNode::isBoolean, "boolean");
        return value == null ? null : value.booleanValue();
    }

    /** A {@code resource.Quantity} field (a string, or a number): null when absent or not a quantity. */
    Quantity quantity(JsonNode parent, String name, FieldPath path) {
        JsonNode value = present(parent, name);
        return value == null ? null : quantity(value, path.child(name));
    }

    /** A quantity value, e.g. of a map entry: null when it is not a quantity, which is reported. */
    Quantity quantity(JsonNode value, FieldPath path) {
        if (value.isString() || value.isNumber()) {
            Optional<Quantity> quantity = Quantity.tryParse(value.isString() ? value.stringValue().trim() : value.toString());
            if (quantity.isPresent()) {
                return quantity.get();
            }
        }
        errors.add(FieldErrors.typeInvalid(path, value,
                "quantities must match the regular expression '" + Quantity.FORMAT + "'"));
        return null;
    }

    /** A Go struct or map field: null when absent. */
    ObjectNode object(JsonNode parent, String name, FieldPath path) {
        return (ObjectNode) typed(parent, name, path, JsonNode::isObject, "object");
    }

    /** A Go slice field: null when absent (nil), otherwise its items, possibly none. */
    List<JsonNode> list(JsonNode parent, String name, FieldPath path) {
        JsonNode value = typed(parent, name, path, JsonNode::isArray, "array");
        return value == null ? null : List.copyOf(value.values());
    }

    /** A Go slice field where nil and empty mean the same. */
    List<JsonNode> items(JsonNode parent, String name, FieldPath path) {
        List<JsonNode> items = list(parent, name, path);
        return items == null ? List.of() : items;
    }

    /** The strings of a Go {@code []string} field; items of another type are reported and skipped. */
    List<String> strings(JsonNode parent, String name, FieldPath path) {
        List<JsonNode> items = items(parent, name, path);
        List<String> values = new ArrayList<>(items.size());
        for (int i = 0; i < items.size(); i++) {
            JsonNode item = items.get(i);
            if (item.isString()) {
                values.add(item.stringValue());
            } else {
                errors.add(FieldErrors.typeInvalid(path.child(name).index(i), item, "must be of type string"));
            }
        }
        return values;
    }

    /** An item of a list of structs; a non-object item is reported and read as an empty struct. */
    ObjectNode struct(JsonNode item, FieldPath path) {
        if (item.isObject()) {
            return (ObjectNode) item;
        }
        errors.add(FieldErrors.typeInvalid(path, item, "must be of type object"));
        return JsonNodes.emptyObject();
    }

    /** The field's value when present and of the expected JSON type; a value of another type is reported. */
    private JsonNode typed(JsonNode parent, String name, FieldPath path, Predicate<JsonNode> isType, String type) {
        JsonNode value = present(parent, name);
        if (value == null || isType.test(value)) {
            return value;
        }
        errors.add(FieldErrors.typeInvalid(path.child(name), value, "must be of type " + type));
        return null;
    }

    static JsonNode present(JsonNode parent, String name) {
        if (parent == null) {
            return null;
        }
        JsonNode value = parent.get(name);
        return value == null || value.isNull() ? null : value;
    }
}
