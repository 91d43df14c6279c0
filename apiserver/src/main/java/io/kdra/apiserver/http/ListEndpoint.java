package io.kdra.apiserver.http;

import io.kdra.apiserver.api.KindRegistry;
import io.kdra.apiserver.api.ResourceType;
import io.kdra.apiserver.json.Json;
import io.kdra.apiserver.registry.Meta;
import io.kdra.apiserver.registry.Registry;
import io.kdra.apiserver.selection.FieldSelector;
import io.kdra.apiserver.selection.LabelSelector;
import io.kdra.apiserver.storage.Store;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.node.ArrayNode;
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
    record Page(List<ObjectNode> items, long resourceVersion, String continueToken, long remaining) {}

    Page select(Call call) {
        ResourceType type = call.type();
        LabelSelector labels = LabelSelector.parse(call.param("labelSelector"));
        FieldSelector fields = FieldSelector.parse(type, call.param("fieldSelector"));
        Long limit = call.longParam("limit");
        String continueParam = call.param("continue");
        ContinueToken token = continueParam == null || continueParam.isEmpty() ? null
                : ContinueToken.decode(continueParam);
        Store.Snapshot snapshot = registry.list(type, call.namespace());
        long resourceVersion = token == null ? snapshot.resourceVersion() : token.resourceVersion();
        List<ObjectNode> items = new ArrayList<>();
        String lastKey = null;
        long remaining = 0;
        for (ObjectNode object : snapshot.items()) {
            String key = key(object);
            if (token != null && key.compareTo(token.lastKey()) <= 0) {
                continue;
            }
            if (!labels.matches(Json.stringMap(object, "metadata", "labels")) || !fields.matches(type, object)) {
                continue;
            }
            if (limit != null && limit > 0 && items.size() >= limit) {
                remaining++;
                continue;
            }
            items.add(object);
            lastKey = key;
        }
        String next = remaining > 0 ? new ContinueToken(resourceVersion, lastKey).encode() : null;
        return new Page(items, resourceVersion, next, remaining);
    }

    /** @return the page as the kind's list, or as a Table when the client asked for one */
    ObjectNode render(Call call, Page page) {
        ResourceType type = call.type();
        String version = call.info().version();
        ObjectNode metadata = Json.object();
        metadata.put("resourceVersion", Long.toString(page.resourceVersion()));
        if (page.continueToken() != null) {
            metadata.put("continue", page.continueToken());
            metadata.put("remainingItemCount", page.remaining());
        }
        Tables.Format table = Tables.requested(call);
        if (table != null) {
            return tables.table(table, type, version, page.items(), metadata);
        }
        ObjectNode list = Json.object();
        list.put("kind", type.listKind());
        list.put("apiVersion", type.apiVersion(version));
        list.set("metadata", metadata);
        ArrayNode items = list.putArray("items");
        for (ObjectNode object : page.items()) {
            items.add(kinds.fromStorage(type, object, version));
        }
        return list;
    }

    private static String key(ObjectNode object) {
        String namespace = Meta.namespace(object);
        return (namespace == null ? "" : namespace) + "/" + Meta.name(object);
    }
}
