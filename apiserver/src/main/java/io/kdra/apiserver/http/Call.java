package io.kdra.apiserver.http;

import io.kdra.apiserver.api.ApiException;
import io.kdra.apiserver.api.ResourceType;
import io.kdra.apiserver.auth.UserInfo;
import io.kdra.apiserver.registry.WriteContext;
import io.vertx.core.http.HttpServerRequest;

/**
 * One resource request being served: what it addresses, who sent it, and its body.
 *
 * @param body the body as sent, or as JSON when it was sent as protobuf
 * @param transcoded whether the body was protobuf, transcoded to JSON
 */
record Call(HttpServerRequest request, RequestInfo info, ResourceType type, UserInfo user, byte[] body,
        boolean transcoded) {

    Call(HttpServerRequest request, RequestInfo info, ResourceType type, UserInfo user, byte[] body) {
        this(request, info, type, user, body, false);
    }

    /** @return this call with the JSON its protobuf body was transcoded to */
    Call withTranscodedBody(byte[] json) {
        return new Call(request, info, type, user, json, true);
    }

    /** @return the Content-Type of {@link #body()} */
    String contentType() {
        return transcoded ? Responses.JSON : request.getHeader("Content-Type");
    }

    /**
     * @return the fieldValidation directive; kube-apiserver has no strict protobuf decoding (a protobuf body cannot
     *     name a field its message lacks), so a transcoded body is decoded leniently
     */
    BodyDecoder.FieldValidation fieldValidation() {
        BodyDecoder.FieldValidation asked = BodyDecoder.FieldValidation.parse(param("fieldValidation"));
        return transcoded ? BodyDecoder.FieldValidation.IGNORE : asked;
    }

    /** @return the namespace the object lives in: the URL's for namespaced kinds, null for cluster-scoped ones */
    String namespace() {
        return type.namespaced() ? info.namespace() : null;
    }

    String param(String name) {
        return request.getParam(name);
    }

    boolean flag(String name) {
        String value = param(name);
        return value != null && (value.equals("true") || value.equals("1"));
    }

    Long longParam(String name) {
        String value = param(name);
        if (value == null || value.isEmpty()) {
            return null;
        }
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw ApiException.badRequest(String.format("invalid value for %s: \"%s\" is not an integer", name, value));
        }
    }

    /**
     * @return the resourceVersion a list or watch asks for, null when it names none ({@code ""} or {@code "0"}: any)
     * @throws ApiException 400 when it is no resourceVersion, as kube-apiserver's storage rejects it
     */
    Long resourceVersionParam() {
        String value = param("resourceVersion");
        if (value == null || value.isEmpty() || value.equals("0")) {
            return null;
        }
        try {
            return Long.parseUnsignedLong(value);
        } catch (NumberFormatException e) {
            throw ApiException.badRequest(String.format("resourceVersion: Invalid value: \"%s\": strconv.ParseUint: "
                    + "parsing \"%s\": %s", value, value, value.matches("\\d+") ? "value out of range"
                    : "invalid syntax"));
        }
    }

    /** @return the write context: dryRun=All, and the field manager named by ?fieldManager= or the user agent */
    WriteContext writeContext(String defaultManagerSuffix) {
        String dryRun = param("dryRun");
        if (dryRun != null && !dryRun.isEmpty() && !dryRun.equals("All")) {
            throw ApiException.badRequest(String.format("dryRun: Unsupported value: \"%s\": supported values: \"All\"",
                    dryRun));
        }
        String manager = param("fieldManager");
        if (manager == null || manager.isEmpty()) {
            String agent = request.getHeader("User-Agent");
            String base = agent == null || agent.isEmpty() ? "unknown" : agent.split("/", 2)[0];
            manager = defaultManagerSuffix == null ? base : base + "-" + defaultManagerSuffix;
        }
        if (manager.length() > 128) {
            throw ApiException.badRequest("fieldManager: Too long: must have at most 128 bytes");
        }
        return new WriteContext(user, dryRun != null && !dryRun.isEmpty(), manager, info.version());
    }
}
