package io.kdra.apiserver.api;

import tools.jackson.databind.JsonNode;

/**
 * One validation failure at a field path, as kube-apiserver reports it in a 422 {@code Status}: the path
 * ({@code spec.devices.requests[0].name}), the error type, the offending value (may be null) and a detail.
 */
public record FieldError(Type type, String field, JsonNode badValue, String detail) {

    /** The error types of k8s.io/apimachinery field errors, with the cause reason each produces in a Status. */
    public enum Type {
        NOT_FOUND("FieldValueNotFound", "Not found"),
        REQUIRED("FieldValueRequired", "Required value"),
        DUPLICATE("FieldValueDuplicate", "Duplicate value"),
        INVALID("FieldValueInvalid", "Invalid value"),
        NOT_SUPPORTED("FieldValueNotSupported", "Unsupported value"),
        FORBIDDEN("FieldValueForbidden", "Forbidden"),
        TOO_LONG("FieldValueTooLong", "Too long"),
        TOO_MANY("FieldValueTooMany", "Too many"),
        INTERNAL("InternalError", "Internal error"),
        TYPE_INVALID("FieldValueTypeInvalid", "Invalid value");

        private final String reason;
        private final String text;

        Type(String reason, String text) {
            this.reason = reason;
            this.text = text;
        }

        /** The {@code causes[].reason} of a Status. */
        public String reason() {
            return reason;
        }

        /** The words that open the message, e.g. "Required value". */
        public String text() {
            return text;
        }
    }
}
