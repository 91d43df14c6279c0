package io.kdra.apiserver.http;

import io.kdra.apiserver.api.KindRegistry;
import io.kdra.apiserver.api.ResourceType;
import io.kdra.apiserver.json.Json;
import io.kdra.apiserver.registry.Meta;
import io.kdra.apiserver.registry.Registry;
import io.kdra.apiserver.selection.FieldSelector;
import io.kdra.apiserver.selection.LabelSelector;
import io.kdra.apiserver.storage.Store;
import io.kdra.apiserver.storage.StoredObject;
import io.vertx.core.http.HttpServerResponse;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.node.ObjectNode;

/** Lists with label and field selectors and paging ({@code limit} and {@code continue}). */
final class ListEndpoint {

    private final Registry registry;
    private final KindRegistry kinds;
    private final Tables tables;

    ListEndpoint(Registry registry, KindRegistry kinds, Tables tables) {
        this.registry = registry;
        this.kinds = kinds;
        this.tables = tables;
    }

    /** A selected page of objects in storage order. */
    record Page(List<StoredObject> entries, long resourceVersion, String continueToken, long remaining) {

        List<ObjectNode> items() {
            return StoredObject.objects(entries);
        }
    }

    Page select(Call call) {
        ResourceType type = call.type();
        LabelSelector labels = LabelSelector.parse(call.param("labelSelector"));
        FieldSelector fields = FieldSelector.parse(type, call.param("fieldSelector"));
        Long limit = call.longParam("limit");
        // read only to reject what kube-apiserver rejects: a list answers at once, whatever its timeout
        call.resourceVersionParam();
        call.longParam("timeoutSeconds");
        String continueParam = call.param("continue");
        ContinueToken token = continueParam == null || continueParam.isEmpty() ? null
                : ContinueToken.decode(continueParam);
        Store.Snapshot snapshot = registry.list(type, call.namespace());
        long resourceVersion = token == null ? snapshot.resourceVersion() : token.resourceVersion();
        List<StoredObject> items = new ArrayList<>();
        long remaining = 0;
        for (StoredObject entry : snapshot.entries()) {
            ObjectNode object = entry.object();
            if (token != null && key(object).compareTo(token.lastKey()) <= 0) {
                continue;
            }
            if (!labels.matches(object) || !fields.matches(type, object)) {
                continue;
            }
            if (limit != null && limit > 0 && items.size() >= limit) {
                remaining++;
                continue;
            }
            items.add(entry);
        }
        String next = remaining > 0
                ? new ContinueToken(resourceVersion, key(items.get(items.size() - 1).object())).encode() : null;
        return new Page(items, resourceVersion, next, remaining);
    }

    /**
     * Answers the page as a Table when the client asked for one, else as the kind's list, assembled from the items'
     * shared JSON when they are served in the storage version.
     */
    void respond(Call call, Page page) {
        HttpServerResponse response = call.request().response();
        ResourceType type = call.type();
        String version = call.info().version();
        Tables.Format table = Tables.requested(call);
        if (table != null) {
            Responses.json(response, 200, tables.table(table, type, version, page.items(), listMetadata(page)));
            return;
        }
        boolean stored = type.isStoredIn(version);
        String apiVersion = type.apiVersion(version);
        List<byte[]> items = new ArrayList<>(page.entries().size());
        for (StoredObject entry : page.entries()) {
            items.add(stored ? entry.json()
                    : entry.json(apiVersion, object -> kinds.fromStorage(type, object, version)));
        }
        ObjectNode head = Json.object();
        head.put("kind", type.listKind());
        head.put("apiVersion", type.apiVersion(version));
        head.set("metadata", listMetadata(page));
        Responses.buffer(response, 200, StoredJson.list(head, items));
    }

    private static ObjectNode listMetadata(Page page) {
        ObjectNode metadata = Json.object();
        metadata.put("resourceVersion", Long.toString(page.resourceVersion()));
        if (page.continueToken() != null) {
            metadata.put("continue", page.continueToken());
            metadata.put("remainingItemCount", page.remaining());
        }
        return metadata;
    }

    private static String key(ObjectNode object) {
        String namespace = Meta.namespace(object);
        return (namespace == null ? "" : namespace) + "/" + Meta.name(object);
    }
}
