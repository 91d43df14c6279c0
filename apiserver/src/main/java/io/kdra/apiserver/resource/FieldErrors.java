package io.kdra.apiserver.resource;

import io.kdra.apiserver.api.FieldError;
import io.kdra.apiserver.api.FieldError.Type;
import java.util.List;
import java.util.stream.Collectors;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;

/**
 * Factories for {@link FieldError}s with the details k8s.io/apimachinery's {@code field} package gives them.
 *
 * <p>Bad values follow Go's rendering rules: error types whose message never shows a value (Required, Forbidden,
 * Too long, Internal error) carry {@code null}; the others carry the offending value, where a Go {@code nil}
 * becomes a JSON {@code null} node so that it still prints as {@code null}.
 */
final class FieldErrors {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private FieldErrors() {
    }

    static FieldError required(FieldPath path, String detail) {
        return new FieldError(Type.REQUIRED, path.value(), null, detail);
    }

    static FieldError forbidden(FieldPath path, String detail) {
        return new FieldError(Type.FORBIDDEN, path.value(), null, detail);
    }

    /** {@code field.InternalError}: not the user's fault; the value is never shown. */
    static FieldError internal(FieldPath path, String detail) {
        return new FieldError(Type.INTERNAL, path.value(), null, detail);
    }

    static FieldError invalid(FieldPath path, JsonNode badValue, String detail) {
        return new FieldError(Type.INVALID, path.value(), orNull(badValue), detail);
    }

    static FieldError invalid(FieldPath path, String badValue, String detail) {
        return invalid(path, NODES.stringNode(badValue), detail);
    }

    static FieldError invalid(FieldPath path, long badValue, String detail) {
        return invalid(path, NODES.numberNode(badValue), detail);
    }

    static FieldError invalid(FieldPath path, boolean badValue, String detail) {
        return invalid(path, NODES.booleanNode(badValue), detail);
    }

    static FieldError typeInvalid(FieldPath path, JsonNode badValue, String detail) {
        return new FieldError(Type.TYPE_INVALID, path.value(), orNull(badValue), detail);
    }

    static FieldError duplicate(FieldPath path, JsonNode badValue) {
        return new FieldError(Type.DUPLICATE, path.value(), orNull(badValue), "");
    }

    static FieldError duplicate(FieldPath path, String badValue) {
        return duplicate(path, NODES.stringNode(badValue));
    }

    /** {@code field.NotSupported}: the detail lists the supported values, each quoted, in the given order. */
    static FieldError notSupported(FieldPath path, String badValue, List<String> supported) {
        String detail = supported.isEmpty()
                ? ""
                : "supported values: " + supported.stream().map(GoStrings::quote).collect(Collectors.joining(", "));
        return new FieldError(Type.NOT_SUPPORTED, path.value(), NODES.stringNode(badValue), detail);
    }

    /** {@code field.TooLong}: the value itself is never shown. */
    static FieldError tooLong(FieldPath path, int maxBytes) {
        return new FieldError(Type.TOO_LONG, path.value(), null,
                "may not be more than " + maxBytes + (maxBytes == 1 ? " byte" : " bytes"));
    }

    /** {@code field.TooMany}: the bad value is the actual number of items. */
    static FieldError tooMany(FieldPath path, int actual, int max) {
        return new FieldError(Type.TOO_MANY, path.value(), NODES.numberNode(actual),
                "must have at most " + max + (max == 1 ? " item" : " items"));
    }

    private static JsonNode orNull(JsonNode value) {
        return value == null ? NODES.nullNode() : value;
    }
}
