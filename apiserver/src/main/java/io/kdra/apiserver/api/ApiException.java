package io.kdra.apiserver.api;

import io.kdra.apiserver.json.Json;
import tools.jackson.databind.node.ObjectNode;

/**
 * A request failure carrying the Kubernetes {@code Status} object to answer with. The factories reproduce the
 * messages and reasons of k8s.io/apimachinery/pkg/api/errors.
 */
public final class ApiException extends RuntimeException {

    private final transient ObjectNode status;

    private ApiException(int code, String reason, String message, ObjectNode details) {
        super(message);
        this.status = Json.object();
        status.put("kind", "Status");
        status.put("apiVersion", "v1");
        status.putObject("metadata");
        status.put("status", "Failure");
        status.put("message", message);
        if (reason != null) {
            status.put("reason", reason);
        }
        if (details != null) {
            status.set("details", details);
        }
        status.put("code", code);
    }

    /** A status with the given code, reason and message, and details naming the object when known. */
    public static ApiException of(int code, String reason, String message, ObjectNode details) {
        return new ApiException(code, reason, message, details);
    }

    public int code() {
        return status.get("code").asInt();
    }

    public String reason() {
        return Json.text(status, "reason");
    }

    /** @return the Status object; callers must not modify it */
    public ObjectNode status() {
        return status;
    }

    public static ObjectNode details(String name, String group, String kind) {
        ObjectNode details = Json.object();
        if (name != null && !name.isEmpty()) {
            details.put("name", name);
        }
        if (group != null && !group.isEmpty()) {
            details.put("group", group);
        }
        if (kind != null && !kind.isEmpty()) {
            details.put("kind", kind);
        }
        return details;
    }

    public static ApiException notFound(ResourceType type, String name) {
        return new ApiException(404, "NotFound", String.format("%s \"%s\" not found", type.groupResource(), name),
                details(name, type.group(), type.plural()));
    }

    public static ApiException alreadyExists(ResourceType type, String name) {
        return new ApiException(409, "AlreadyExists", String.format("%s \"%s\" already exists", type.groupResource(), name),
                details(name, type.group(), type.plural()));
    }

    public static ApiException conflict(ResourceType type, String name, String why) {
        return new ApiException(409, "Conflict",
                String.format("Operation cannot be fulfilled on %s \"%s\": %s", type.groupResource(), name, why),
                details(name, type.group(), type.plural()));
    }

    /** The optimistic-concurrency failure clients retry on. */
    public static ApiException modified(ResourceType type, String name) {
        return conflict(type, name, "the object has been modified; please apply your changes to the latest version and try again");
    }

    /** A conflict on a resource named by hand, e.g. {@code pods/binding}. */
    public static ApiException conflictOn(String groupResource, String name, String why) {
        String[] parts = groupResource.split("\\.", 2);
        return new ApiException(409, "Conflict",
                String.format("Operation cannot be fulfilled on %s \"%s\": %s", groupResource, name, why),
                details(name, parts.length > 1 ? parts[1] : "", parts[0]));
    }

    public static ApiException forbidden(ResourceType type, String name, String why) {
        return new ApiException(403, "Forbidden", forbiddenMessage(type, name, why),
                details(name, type.group(), type.plural()));
    }

    private static String forbiddenMessage(ResourceType type, String name, String why) {
        return name == null || name.isEmpty()
                ? String.format("%s is forbidden: %s", type.groupResource(), why)
                : String.format("%s \"%s\" is forbidden: %s", type.groupResource(), name, why);
    }

    /**
     * A denial by a ValidatingAdmissionPolicy whose validation sets no reason: kube-apiserver words it as a
     * forbidden request but answers 422 Invalid, with the policy's message as the one cause.
     */
    public static ApiException deniedByPolicy(ResourceType type, String name, String policy, String binding,
            String why) {
        String denial = String.format("ValidatingAdmissionPolicy '%s' with binding '%s' denied request: %s", policy,
                binding, why);
        ObjectNode details = details(name, type.group(), type.plural());
        details.putArray("causes").addObject().put("message", denial);
        return new ApiException(422, "Invalid", forbiddenMessage(type, name, denial), details);
    }

    public static ApiException badRequest(String message) {
        return new ApiException(400, "BadRequest", message, null);
    }

    public static ApiException methodNotAllowed() {
        return new ApiException(405, "MethodNotAllowed", "the server does not allow this method on the requested resource",
                Json.object());
    }

    public static ApiException pathNotFound() {
        return new ApiException(404, "NotFound", "the server could not find the requested resource", Json.object());
    }

    public static ApiException gone(String message) {
        return new ApiException(410, "Expired", message, null);
    }

    public static ApiException tooLarge(long limit) {
        return new ApiException(413, "RequestEntityTooLarge", "Request entity too large: limit is " + limit, null);
    }

    public static ApiException unsupportedMediaType(String contentType, String accepted) {
        return new ApiException(415, "UnsupportedMediaType", String.format(
                "the body of the request was in an unknown format %s - accepted media types include: %s",
                contentType == null ? "" : contentType, accepted), null);
    }

    public static ApiException unauthorized() {
        return new ApiException(401, "Unauthorized", "Unauthorized", null);
    }

    public static ApiException internal(String message) {
        ObjectNode details = Json.object();
        details.putArray("causes").addObject().put("message", message);
        return new ApiException(500, "InternalError", "Internal error occurred: " + message, details);
    }

    public static ApiException timeout(String message) {
        return new ApiException(504, "Timeout", message, null);
    }
}
