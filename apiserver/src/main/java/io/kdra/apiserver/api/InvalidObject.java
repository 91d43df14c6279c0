package io.kdra.apiserver.api;

import io.kdra.apiserver.json.Json;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.databind.node.StringNode;

/**
 * Renders field errors as kube-apiserver's 422 Invalid status: the message
 * {@code <Kind>.<group> "<name>" is invalid: <field>: <type>: <value>: <detail>} (several errors in brackets, comma
 * separated, duplicates removed) and one cause per error with reason, field and message.
 */
public final class InvalidObject {

    private InvalidObject() {}

    public static ApiException of(ResourceType type, String name, List<FieldError> errors) {
        ObjectNode details = ApiException.details(name, type.group(), type.kind());
        ArrayNode causes = details.putArray("causes");
        Set<String> messages = new LinkedHashSet<>();
        for (FieldError error : errors) {
            ObjectNode cause = causes.addObject();
            cause.put("reason", error.type().reason());
            cause.put("message", body(error));
            cause.put("field", error.field());
            messages.add(message(error));
        }
        String message = String.format("%s \"%s\" is invalid", type.groupKind(), name == null ? "" : name);
        if (messages.size() == 1) {
            message += ": " + messages.iterator().next();
        } else if (!messages.isEmpty()) {
            message += ": [" + String.join(", ", new ArrayList<>(messages)) + "]";
        }
        return ApiException.of(422, "Invalid", message, details);
    }

    /**
     * A patch whose result does not decode (a value of the wrong type, or unknown fields under strict validation):
     * kube-apiserver answers 422 with the patched object as the invalid value of a field named {@code patch}, under
     * an empty kind and name.
     */
    public static ApiException ofPatch(String patchedJson, String why) {
        FieldError error = new FieldError(FieldError.Type.INVALID, "patch", StringNode.valueOf(patchedJson), why);
        ObjectNode details = Json.object();
        ObjectNode cause = details.putArray("causes").addObject();
        cause.put("reason", error.type().reason());
        cause.put("message", body(error));
        cause.put("field", error.field());
        return ApiException.of(422, "Invalid", " \"\" is invalid: " + message(error), details);
    }

    /** @return {@code <field>: <body>}, as field.Error.Error() prints it */
    public static String message(FieldError error) {
        return error.field() + ": " + body(error);
    }

    /** @return the error without its field, as field.Error.ErrorBody() prints it */
    public static String body(FieldError error) {
        String text;
        switch (error.type()) {
            case REQUIRED:
            case FORBIDDEN:
            case TOO_LONG:
            case INTERNAL:
                text = error.type().text();
                break;
            default:
                text = error.type().text() + ": " + goValue(error.badValue());
        }
        if (error.detail() != null && !error.detail().isEmpty()) {
            text += ": " + error.detail();
        }
        return text;
    }

    /** Formats a value as Go's fmt does for field errors: strings quoted, numbers and booleans plain. */
    static String goValue(JsonNode value) {
        if (value == null || value.isNull() || value.isMissingNode()) {
            return "null";
        }
        if (value.isString()) {
            return quote(value.stringValue());
        }
        if (value.isNumber() || value.isBoolean()) {
            return value.asString();
        }
        return Json.string(value);
    }

    /** @return the text quoted for a {@code Warning} header value */
    public static String quoteForHeader(String text) {
        return quote(text);
    }

    /** Go's %q for the characters object names and messages contain. */
    static String quote(String s) {
        StringBuilder out = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\t' -> out.append("\\t");
                case '\r' -> out.append("\\r");
                default -> {
                    if (c < 0x20 || c == 0x7f) {
                        out.append(String.format("\\x%02x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"').toString();
    }
}
