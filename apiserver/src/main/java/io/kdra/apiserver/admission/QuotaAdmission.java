package io.kdra.apiserver.admission;

import io.kdra.apiserver.api.ApiException;
import io.kdra.apiserver.api.ResourceType;
import io.kdra.apiserver.json.Json;
import io.kdra.apiserver.storage.Store;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * ResourceQuota object counts ({@code count/<resource>.<group>}, and the legacy names such as {@code pods}): a create
 * that would exceed a quota's hard limit in the namespace is forbidden with kube-apiserver's "exceeded quota" message.
 * Usage is counted from the store under the write lock, so concurrent creates cannot overshoot.
 */
public final class QuotaAdmission implements AdmissionPlugin {

    static final String QUOTAS = "/resourcequotas";

    private final Store store;

    public QuotaAdmission(Store store) {
        this.store = store;
    }

    @Override
    public void admit(AdmissionRequest request) {
        if (request.operation() != AdmissionRequest.Operation.CREATE || !request.type().namespaced()
                || !request.subresource().isEmpty()) {
            return;
        }
        ResourceType type = request.type();
        for (ObjectNode quota : store.list(QUOTAS, request.namespace()).items()) {
            JsonNode hard = Json.at(quota, "spec", "hard");
            for (Map.Entry<String, JsonNode> limit : hard.properties()) {
                if (!QuotaResources.counts(limit.getKey(), type)) {
                    continue;
                }
                Long max = QuotaResources.parseCount(limit.getValue().asString());
                if (max == null) {
                    continue;
                }
                long used = store.count(type.storageKey(), request.namespace());
                if (used + 1 > max) {
                    String key = limit.getKey();
                    throw ApiException.forbidden(type, request.name(), String.format(
                            "exceeded quota: %s, requested: %s=1, used: %s=%d, limited: %s=%s",
                            Json.text(quota, "metadata", "name"), key, key, used, key, limit.getValue().asString()));
                }
            }
        }
    }
}
