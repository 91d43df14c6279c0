package io.kdra.apiserver.lifecycle;

import io.kdra.apiserver.admission.QuotaResources;
import io.kdra.apiserver.api.ResourceType;
import io.kdra.apiserver.json.Json;
import io.kdra.apiserver.registry.Meta;
import io.kdra.apiserver.storage.Store;
import io.kdra.apiserver.storage.WatchEvent;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** Keeps {@code status.hard} and {@code status.used} of ResourceQuotas current, as the resourcequota controller does. */
final class QuotaStatusController implements Controller {

    private static final String QUOTAS = "/resourcequotas";

    private final SystemWriter writer;
    private final Store store;
    private final List<ResourceType> types;
    private final ResourceType quotaType;

    QuotaStatusController(SystemWriter writer, Store store, List<ResourceType> types) {
        this.writer = writer;
        this.store = store;
        this.types = types;
        this.quotaType = types.stream().filter(t -> t.storageKey().equals(QUOTAS)).findFirst().orElseThrow();
    }

    @Override
    public void handle(WatchEvent event) {
        String namespace = Meta.namespace(event.object());
        if (namespace == null) {
            return;
        }
        if (event.storageKey().equals(QUOTAS)) {
            if (event.type() != WatchEvent.Type.DELETED) {
                refresh(event.object());
            }
        } else if (event.type() != WatchEvent.Type.MODIFIED) {
            for (ObjectNode quota : store.list(QUOTAS, namespace).items()) {
                refresh(quota);
            }
        }
    }

    private void refresh(ObjectNode quota) {
        ObjectNode status = Json.object();
        JsonNode hard = Json.at(quota, "spec", "hard");
        status.set("hard", hard.isObject() ? hard.deepCopy() : Json.object());
        ObjectNode used = status.putObject("used");
        for (Map.Entry<String, JsonNode> limit : hard.properties()) {
            for (ResourceType type : types) {
                if (QuotaResources.counts(limit.getKey(), type)) {
                    used.put(limit.getKey(), Integer.toString(store.count(type.storageKey(), Meta.namespace(quota))));
                }
            }
        }
        if (status.equals(quota.get("status"))) {
            return;
        }
        writer.patch(quotaType, Meta.namespace(quota), Meta.name(quota), true, current -> {
            current.set("status", status);
            return current;
        });
    }
}
