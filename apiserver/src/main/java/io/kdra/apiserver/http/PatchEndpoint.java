package io.kdra.apiserver.http;

import io.kdra.apiserver.api.ApiException;
import io.kdra.apiserver.api.KindRegistry;
import io.kdra.apiserver.api.ResourceType;
import io.kdra.apiserver.json.Json;
import io.kdra.apiserver.patch.JsonPatch;
import io.kdra.apiserver.patch.MergePatch;
import io.kdra.apiserver.patch.ServerSideApply;
import io.kdra.apiserver.patch.StrategicMergePatch;
import io.kdra.apiserver.registry.Meta;
import io.kdra.apiserver.registry.Registry;
import io.kdra.apiserver.registry.WriteContext;
import java.time.Clock;
import java.util.function.UnaryOperator;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * PATCH in its four content types. Patches apply to the object in the version of the URL, then the result goes
 * through the same checks as an update; an apply patch creates the object when it does not exist.
 */
final class PatchEndpoint {

    static final String JSON_PATCH = "application/json-patch+json";
    static final String MERGE_PATCH = "application/merge-patch+json";
    static final String STRATEGIC_MERGE_PATCH = "application/strategic-merge-patch+json";
    static final String APPLY_PATCH = "application/apply-patch+yaml";
    private static final String ACCEPTED = String.join(", ", JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH,
            APPLY_PATCH);

    private final Registry registry;
    private final KindRegistry kinds;
    private final Clock clock;

    PatchEndpoint(Registry registry, KindRegistry kinds, Clock clock) {
        this.registry = registry;
        this.kinds = kinds;
        this.clock = clock;
    }

    /** The patched object, in the storage version, and whether the patch created it (an apply patch can). */
    record Patched(ObjectNode object, boolean created) {}

    Patched patch(Call call, boolean statusSubresource) {
        String contentType = mediaType(call.request().getHeader("Content-Type"));
        ResourceType type = call.type();
        String version = call.info().version();
        String name = call.info().name();
        JsonNode patch = BodyDecoder.parse(call.body());
        if (contentType.equals(APPLY_PATCH)) {
            return apply(call, patch, statusSubresource);
        }
        UnaryOperator<JsonNode> operation = switch (contentType) {
            case JSON_PATCH -> document -> JsonPatch.apply(document, patch);
            case MERGE_PATCH -> document -> MergePatch.apply(document, patch);
            case STRATEGIC_MERGE_PATCH -> document -> StrategicMergePatch.apply(document, patch);
            default -> throw ApiException.unsupportedMediaType(contentType, ACCEPTED);
        };
        WriteContext context = call.writeContext(null);
        return new Patched(registry.patch(type, call.info().namespace(), name, current -> {
            ObjectNode versioned = kinds.fromStorage(type, current, version).deepCopy();
            JsonNode patched = operation.apply(versioned);
            return toStorage(type, version, patched);
        }, context, statusSubresource, false, true), false);
    }

    private Patched apply(Call call, JsonNode config, boolean statusSubresource) {
        if (!config.isObject()) {
            throw ApiException.badRequest("error decoding YAML: an apply configuration must be an object");
        }
        ResourceType type = call.type();
        String version = call.info().version();
        String manager = call.param("fieldManager");
        if (manager == null || manager.isEmpty()) {
            throw ApiException.badRequest(
                    "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is required for apply patch");
        }
        boolean force = call.flag("force");
        WriteContext context = call.writeContext(null);
        ObjectNode applied = BodyDecoder.decode(type, version, Json.bytes(config),
                BodyDecoder.FieldValidation.parse(call.param("fieldValidation"))).object();
        String time = Meta.timestamp(clock.instant());
        boolean[] created = {false};
        ObjectNode result = registry.patch(type, call.info().namespace(), call.info().name(), current -> {
            created[0] = current == null;
            ObjectNode live = current == null ? null : kinds.fromStorage(type, current, version).deepCopy();
            return toStorage(type, version, ServerSideApply.apply(live, applied, manager, force, time));
        }, context, statusSubresource, true, false);
        return new Patched(result, created[0]);
    }

    private ObjectNode toStorage(ResourceType type, String version, JsonNode patched) {
        if (!patched.isObject()) {
            throw ApiException.badRequest("the patch did not produce an object");
        }
        ObjectNode object = (ObjectNode) patched;
        String apiVersion = Json.text(object, "apiVersion");
        if (!type.apiVersion(version).equals(apiVersion) || !type.kind().equals(Json.text(object, "kind"))) {
            throw ApiException.badRequest(String.format("the patch changed apiVersion/kind to %s/%s; expected %s %s",
                    apiVersion, Json.text(object, "kind"), type.apiVersion(version), type.kind()));
        }
        return kinds.toStorage(type, object, version);
    }

    private static String mediaType(String contentType) {
        if (contentType == null) {
            return "";
        }
        int semicolon = contentType.indexOf(';');
        return (semicolon < 0 ? contentType : contentType.substring(0, semicolon)).trim().toLowerCase(java.util.Locale.ROOT);
    }
}
