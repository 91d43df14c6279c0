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
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
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

    /**
     * The patched object, in the storage version, whether the patch created it (an apply patch can), and the
     * warnings to send back.
     */
    record Patched(ObjectNode object, boolean created, List<String> warnings) {}

    Patched patch(Call call, boolean statusSubresource) {
        String contentType = MediaTypes.mediaType(call.request().getHeader("Content-Type"));
        ResourceType type = call.type();
        String version = call.info().version();
        String name = call.info().name();
        if (contentType.equals(APPLY_PATCH)) {
            return apply(call, BodyDecoder.parse(call.body(), contentType), statusSubresource);
        }
        UnaryOperator<JsonNode> operation = operation(contentType, call.body());
        WriteContext context = call.writeContext(null);
        BodyDecoder.FieldValidation validation = BodyDecoder.FieldValidation.parse(call.param("fieldValidation"));
        AtomicReference<List<String>> warnings = new AtomicReference<>(List.of());
        ObjectNode result = registry.patch(type, call.info().namespace(), name, current -> {
            ObjectNode versioned = kinds.fromStorage(type, current, version);
            ObjectNode patched = patchedObject(type, version, operation.apply(versioned));
            warnings.set(BodyDecoder.decodePatchedFields(type.group(), version, type.kind(), patched, validation));
            return kinds.toStorage(type, patched, version);
        }, context, statusSubresource, false, true);
        return new Patched(result, false, warnings.get());
    }

    /**
     * @return the patch as an operation on a document, for every content type but apply; an unknown content type is a
     *     415 before the body is read
     */
    static UnaryOperator<JsonNode> operation(String contentType, byte[] body) {
        if (!contentType.equals(JSON_PATCH) && !contentType.equals(MERGE_PATCH)
                && !contentType.equals(STRATEGIC_MERGE_PATCH)) {
            throw ApiException.unsupportedMediaType(contentType, ACCEPTED);
        }
        JsonNode patch = BodyDecoder.parse(body);
        return switch (contentType) {
            case JSON_PATCH -> document -> JsonPatch.apply(document, patch);
            case MERGE_PATCH -> document -> MergePatch.apply(document, patch);
            default -> document -> StrategicMergePatch.apply(document, patch);
        };
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
        // apply rejects unknown fields whatever the directive, but a directive that is not one is still an error
        BodyDecoder.FieldValidation.parse(call.param("fieldValidation"));
        ObjectNode applied = BodyDecoder.decodeApplyConfiguration(type, version, config);
        String time = Meta.timestamp(clock.instant());
        boolean[] created = {false};
        ObjectNode result = registry.patch(type, call.info().namespace(), call.info().name(), current -> {
            created[0] = current == null;
            ObjectNode live = current == null ? null : kinds.fromStorage(type, current, version);
            return kinds.toStorage(type,
                    patchedObject(type, version, ServerSideApply.apply(live, applied, manager, force, time)),
                    version);
        }, context, statusSubresource, true, false);
        return new Patched(result, created[0], List.of());
    }

    private static ObjectNode patchedObject(ResourceType type, String version, JsonNode patched) {
        if (!patched.isObject()) {
            throw ApiException.badRequest("the patch did not produce an object");
        }
        ObjectNode object = (ObjectNode) patched;
        String apiVersion = Json.text(object, "apiVersion");
        if (!type.apiVersion(version).equals(apiVersion) || !type.kind().equals(Json.text(object, "kind"))) {
            throw ApiException.badRequest(String.format("the patch changed apiVersion/kind to %s/%s; expected %s %s",
                    apiVersion, Json.text(object, "kind"), type.apiVersion(version), type.kind()));
        }
        return object;
    }
}
