package io.kdra.apiserver.lifecycle;

import io.kdra.apiserver.admission.QuotaResources;
import io.kdra.apiserver.admission.QuotaUsage;
import io.kdra.apiserver.api.ResourceType;
import io.kdra.apiserver.json.Json;
import io.kdra.apiserver.registry.Meta;
import io.kdra.apiserver.storage.Store;
import io.kdra.apiserver.storage.WatchEvent;
import io.kdra.kube.FeatureGates;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Keeps {@code status.hard} and {@code status.used} of ResourceQuotas current, as the resourcequota controller does:
 * object counts ({@link QuotaResources}) and the extended resources and devices of pods and claims
 * ({@link QuotaUsage}), recomputed whenever an object of the quota's namespace changes (pods and claims also on
 * updates, since their phase and status change what they use).
 */
final class QuotaStatusController implements Controller {

    private static final String QUOTAS = "/resourcequotas";
    private static final Set<String> USAGE_ON_UPDATE = Set.of("/pods", "resource.k8s.io/resourceclaims");

    private final SystemWriter writer;
    private final Store store;
    private final List<ResourceType> types;
    private final ResourceType quotaType;
    private final QuotaUsage usage;

    QuotaStatusController(SystemWriter writer, Store store, List<ResourceType> types, FeatureGates gates) {
        this.writer = writer;
        this.store = store;
        this.types = types;
        this.usage = new QuotaUsage(store, gates);
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
        } else if (event.type() != WatchEvent.Type.MODIFIED || USAGE_ON_UPDATE.contains(event.storageKey())) {
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
        Set<String> computed = new LinkedHashSet<>();
        for (Map.Entry<String, JsonNode> limit : hard.properties()) {
            for (ResourceType type : types) {
                if (QuotaResources.counts(limit.getKey(), type)) {
                    used.put(limit.getKey(), Integer.toString(store.count(type.storageKey(), Meta.namespace(quota))));
                }
            }
            if (usage.computes(limit.getKey())) {
                computed.add(limit.getKey());
            }
        }
        if (!computed.isEmpty()) {
            usage.usage(Meta.namespace(quota), computed).forEach((name, quantity) ->
                    used.put(name, Long.toString(quantity)));
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
