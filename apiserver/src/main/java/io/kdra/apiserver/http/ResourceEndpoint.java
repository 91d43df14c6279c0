package io.kdra.apiserver.http;

import io.kdra.apiserver.api.ApiException;
import io.kdra.apiserver.api.KindRegistry;
import io.kdra.apiserver.api.ResourceType;
import io.kdra.apiserver.json.Json;
import io.kdra.apiserver.protobuf.KubeProtobuf;
import io.kdra.apiserver.registry.DeleteOptions;
import io.kdra.apiserver.registry.Deletion;
import io.kdra.apiserver.registry.Meta;
import io.kdra.apiserver.registry.Registry;
import io.kdra.apiserver.registry.WriteContext;
import io.kdra.apiserver.storage.StoredObject;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerResponse;
import java.util.List;
import java.util.function.Supplier;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.MissingNode;
import tools.jackson.databind.node.ObjectNode;

/** The verbs on a resource and its subresources, translating between the URL's version and the storage version. */
final class ResourceEndpoint {

    private final Registry registry;
    private final KindRegistry kinds;
    private final Tables tables;
    private final ListEndpoint lists;
    private final WatchEndpoint watches;
    private final PatchEndpoint patches;
    private final Subresources subresources;

    ResourceEndpoint(Registry registry, KindRegistry kinds, Tables tables, ListEndpoint lists, WatchEndpoint watches,
            PatchEndpoint patches, Subresources subresources) {
        this.registry = registry;
        this.kinds = kinds;
        this.tables = tables;
        this.lists = lists;
        this.watches = watches;
        this.patches = patches;
        this.subresources = subresources;
    }

    void handle(Call sent) {
        RequestInfo info = sent.info();
        HttpMethod method = sent.request().method();
        boolean watch = method == HttpMethod.GET && (info.legacyWatch() || sent.flag("watch"));
        MediaTypes.Format format = MediaTypes.answerFormat(sent.request().getHeader("Accept"), watch,
                KubeProtobuf.supports(sent.type().apiVersion(info.version()), sent.type().kind()));
        // Responses converts every answer written from here on
        if (format == MediaTypes.Format.YAML) {
            sent.request().response().putHeader("Content-Type", MediaTypes.YAML);
        } else if (format == MediaTypes.Format.PROTOBUF) {
            sent.request().response().putHeader("Content-Type", KubeProtobuf.MEDIA_TYPE);
        }
        Call call = ProtobufBodies.asJson(sent);
        if (info.subresource() != null) {
            if (!call.type().hasSubresource(info.subresource())) {
                throw ApiException.pathNotFound();
            }
            subresources.handle(call, this);
            return;
        }
        if (info.name() == null) {
            if (watch) {
                WatchEndpoint.Watch prepared = watches.prepare(call);
                HttpServerResponse response = call.request().response();
                watches.start(prepared, format == MediaTypes.Format.PROTOBUF
                        ? WatchSink.protobuf(startStream(response, KubeProtobuf.WATCH_MEDIA_TYPE))
                        : WatchSink.http(startStream(response, Responses.JSON)));
            } else if (method == HttpMethod.GET) {
                lists.respond(call, lists.select(call));
            } else if (method == HttpMethod.POST) {
                create(call);
            } else if (method == HttpMethod.DELETE && call.type().verbs().contains("deletecollection")) {
                deleteCollection(call);
            } else {
                throw ApiException.methodNotAllowed();
            }
            return;
        }
        if (method == HttpMethod.GET && info.legacyWatch()) {
            throw ApiException.badRequest("watching a single object needs a fieldSelector on metadata.name");
        }
        if (method == HttpMethod.GET) {
            StoredObject stored = registry.getStored(call.type(), call.namespace(), info.name());
            Tables.Format table = Tables.requested(call);
            if (table != null) {
                Responses.json(call.request().response(), 200,
                        tables.table(table, call.type(), info.version(), stored.object()));
            } else {
                respond(call, 200, stored.object(), List.of(), stored::json);
            }
        } else if (method == HttpMethod.PUT) {
            update(call, false);
        } else if (method == HttpMethod.PATCH) {
            patch(call, false);
        } else if (method == HttpMethod.DELETE) {
            delete(call);
        } else {
            throw ApiException.methodNotAllowed();
        }
    }

    void create(Call call) {
        if (call.type().namespaced() && call.namespace() == null) {
            throw ApiException.methodNotAllowed();
        }
        BodyDecoder.Decoded decoded = decode(call);
        ObjectNode stored = kinds.toStorage(call.type(), decoded.object(), decoded.version());
        ObjectNode created = registry.create(call.type(), call.namespace(), stored, call.writeContext(null));
        respond(call, 201, created, decoded.warnings());
    }

    void update(Call call, boolean statusSubresource) {
        BodyDecoder.Decoded decoded = decode(call);
        ObjectNode stored = kinds.toStorage(call.type(), decoded.object(), decoded.version());
        ObjectNode updated = registry.update(call.type(), call.namespace(), call.info().name(), stored,
                call.writeContext(null), statusSubresource);
        respond(call, 200, updated, decoded.warnings());
    }

    void patch(Call call, boolean statusSubresource) {
        PatchEndpoint.Patched patched = patches.patch(call, statusSubresource);
        respond(call, patched.created() ? 201 : 200, patched.object(), patched.warnings());
    }

    void get(Call call) {
        respond(call, 200, registry.get(call.type(), call.namespace(), call.info().name()), List.of());
    }

    private void delete(Call call) {
        JsonNode body = deleteOptionsBody(call);
        DeleteOptions options = deleteOptions(call, body);
        WriteContext context = deleteContext(call, body);
        Deletion.Outcome outcome = registry.delete(call.type(), call.namespace(), call.info().name(), options, context);
        ResourceType type = call.type();
        if (!outcome.deleted() || returnsDeletedObject(type)) {
            respond(call, 200, outcome.object(), List.of());
            return;
        }
        ObjectNode status = Json.object();
        status.put("kind", "Status");
        status.put("apiVersion", "v1");
        status.putObject("metadata");
        status.put("status", "Success");
        ObjectNode details = status.putObject("details");
        details.put("name", call.info().name());
        if (!type.group().isEmpty()) {
            details.put("group", type.group());
        }
        details.put("kind", type.plural());
        details.put("uid", Meta.uid(outcome.object()));
        Responses.json(call.request().response(), 200, status);
    }

    private void deleteCollection(Call call) {
        JsonNode body = deleteOptionsBody(call);
        DeleteOptions options = deleteOptions(call, body);
        WriteContext context = deleteContext(call, body);
        ListEndpoint.Page page = lists.select(call);
        ObjectNode list = Json.object();
        list.put("kind", call.type().listKind());
        list.put("apiVersion", call.type().apiVersion(call.info().version()));
        list.putObject("metadata").put("resourceVersion", Long.toString(registry.store().resourceVersion()));
        ArrayNode items = list.putArray("items");
        for (ObjectNode object : page.items()) {
            try {
                Deletion.Outcome outcome = registry.delete(call.type(), call.namespace(), Meta.name(object), options,
                        context);
                items.add(kinds.fromStorage(call.type(), outcome.object(), call.info().version()));
            } catch (ApiException e) {
                if (e.code() != 404) {
                    throw e;
                }
            }
        }
        Responses.json(call.request().response(), 200, list);
    }

    /** Writes the object in the URL's version, with the warnings as Warning headers. */
    void respond(Call call, int code, ObjectNode stored, List<String> warnings) {
        respond(call, code, stored, warnings, () -> json(call.type(), stored));
    }

    /** @param storageJson the object's JSON, for an answer in the storage version */
    private void respond(Call call, int code, ObjectNode stored, List<String> warnings, Supplier<byte[]> storageJson) {
        HttpServerResponse response = call.request().response();
        Responses.warn(response, warnings);
        ResourceType type = call.type();
        if (type.isStoredIn(call.info().version())) {
            Responses.bytes(response, code, storageJson.get());
        } else {
            Responses.json(response, code, kinds.fromStorage(type, stored, call.info().version()));
        }
    }

    /**
     * @return the object's JSON; for the object a write just committed, the bytes its store entry shares, so that
     *     the watchers reuse what the writer's answer serialised
     */
    private byte[] json(ResourceType type, ObjectNode object) {
        StoredObject entry = registry.store().getStored(type.storageKey(),
                type.namespaced() ? Meta.namespace(object) : null, Meta.name(object));
        return entry != null && entry.object() == object ? entry.json() : Json.bytes(object);
    }

    BodyDecoder.Decoded decode(Call call) {
        return BodyDecoder.decode(call.type(), call.info().version(), call.body(), bodyContentType(call),
                call.fieldValidation());
    }

    /**
     * @return the Content-Type of a body that is an object (create, update, a subresource's object)
     * @throws ApiException 415 for a type other than JSON or YAML (protobuf is JSON by now)
     */
    static String bodyContentType(Call call) {
        String contentType = call.contentType();
        String type = MediaTypes.mediaType(contentType);
        if (contentType != null && !type.equals(Responses.JSON) && !type.equals("*/*")
                && !type.equals(MediaTypes.YAML)) {
            throw ApiException.unsupportedMediaType(contentType, Responses.JSON + ", " + MediaTypes.YAML);
        }
        return contentType;
    }

    private static boolean returnsDeletedObject(ResourceType type) {
        return type.group().isEmpty() && (type.kind().equals("Pod") || type.kind().equals("Namespace"));
    }

    private static HttpServerResponse startStream(HttpServerResponse response, String contentType) {
        response.setChunked(true).putHeader("Content-Type", contentType).setStatusCode(200);
        response.writeHead();
        return response;
    }

    /** @return the DeleteOptions the request's body holds, or a missing node */
    static JsonNode deleteOptionsBody(Call call) {
        return call.body() == null || call.body().length == 0 ? MissingNode.getInstance()
                : BodyDecoder.parse(call.body());
    }

    /** The write context of a delete: a dry run when the query or the DeleteOptions ({@code dryRun: [All]}) ask. */
    static WriteContext deleteContext(Call call, JsonNode deleteOptions) {
        WriteContext context = call.writeContext(null);
        if (context.dryRun()) {
            return context;
        }
        JsonNode dryRun = deleteOptions.path("dryRun");
        for (JsonNode value : dryRun) {
            if (!value.isString() || !value.asString().equals("All")) {
                throw ApiException.of(422, "Invalid", String.format("DeleteOptions.meta.k8s.io \"\" is invalid: "
                        + "dryRun: Unsupported value: %s: supported values: \"All\"", value), null);
            }
        }
        return dryRun.isEmpty() ? context
                : new WriteContext(context.user(), true, context.fieldManager(), context.version());
    }

    /** The options of a delete: the query's, overridden by those of the DeleteOptions body. */
    static DeleteOptions deleteOptions(Call call, JsonNode body) {
        Long grace = call.longParam("gracePeriodSeconds");
        String policy = call.param("propagationPolicy");
        if (body.path("gracePeriodSeconds").isIntegralNumber()) {
            grace = body.get("gracePeriodSeconds").asLong();
        }
        if (body.path("propagationPolicy").isString()) {
            policy = body.get("propagationPolicy").asString();
        }
        if (body.path("orphanDependents").isBoolean()) {
            policy = body.get("orphanDependents").asBoolean() ? DeleteOptions.ORPHAN : DeleteOptions.BACKGROUND;
        }
        String uid = Json.text(body, "preconditions", "uid");
        String resourceVersion = Json.text(body, "preconditions", "resourceVersion");
        if (policy != null && !List.of(DeleteOptions.ORPHAN, DeleteOptions.BACKGROUND, DeleteOptions.FOREGROUND)
                .contains(policy)) {
            throw ApiException.of(422, "Invalid", String.format("DeleteOptions.meta.k8s.io \"\" is invalid: "
                    + "propagationPolicy: Unsupported value: \"%s\": supported values: \"Foreground\", "
                    + "\"Background\", \"Orphan\", \"nil\"", policy), null);
        }
        return new DeleteOptions(grace, policy, uid, resourceVersion);
    }
}
