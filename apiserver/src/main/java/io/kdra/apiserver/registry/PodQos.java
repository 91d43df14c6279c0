package io.kdra.apiserver.registry;

import io.kdra.apiserver.json.Json;
import java.math.BigDecimal;
import io.kdra.kube.Quantity;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A pod's quality-of-service class, as kube-apiserver sets {@code status.qosClass} on create: from the pod-level
 * resources when the pod has {@code spec.resources} (even empty), else from its containers and init containers
 * together. Only cpu and memory count,
 * and only positive amounts. No requests or limits at all is {@code BestEffort}; cpu and memory limits on every
 * container (pod), with the summed requests equal to the summed limits, is {@code Guaranteed}; anything else is
 * {@code Burstable}.
 */
final class PodQos {

    private static final List<String> QOS_RESOURCES = List.of("cpu", "memory");

    private PodQos() {}

    static String of(ObjectNode pod) {
        Map<String, BigDecimal> requests = new HashMap<>();
        Map<String, BigDecimal> limits = new HashMap<>();
        boolean guaranteed = true;
        JsonNode podResources = Json.at(pod, "spec", "resources");
        if (podResources.isObject()) {
            add(requests, podResources.path("requests"));
            JsonNode podLimits = podResources.path("limits");
            if (!Json.isEmpty(podLimits) && add(limits, podLimits) < QOS_RESOURCES.size()) {
                guaranteed = false;
            }
        } else {
            for (String list : List.of("containers", "initContainers")) {
                for (JsonNode container : Json.at(pod, "spec", list)) {
                    add(requests, Json.at(container, "resources", "requests"));
                    if (add(limits, Json.at(container, "resources", "limits")) < QOS_RESOURCES.size()) {
                        guaranteed = false;
                    }
                }
            }
        }
        if (requests.isEmpty() && limits.isEmpty()) {
            return "BestEffort";
        }
        for (Map.Entry<String, BigDecimal> request : requests.entrySet()) {
            BigDecimal limit = limits.get(request.getKey());
            if (limit == null || limit.compareTo(request.getValue()) != 0) {
                guaranteed = false;
            }
        }
        return guaranteed && requests.size() == limits.size() ? "Guaranteed" : "Burstable";
    }

    /**
     * Adds the positive cpu and memory amounts to the totals.
     *
     * @return how many of the two were positive
     */
    private static int add(Map<String, BigDecimal> totals, JsonNode list) {
        int found = 0;
        for (String name : QOS_RESOURCES) {
            JsonNode value = list.path(name);
            Optional<Quantity> quantity = value.isString() ? Quantity.tryParse(value.stringValue())
                    : value.isNumber() ? Quantity.tryParse(value.asString()) : Optional.empty();
            if (quantity.isPresent() && quantity.get().signum() > 0) {
                totals.merge(name, quantity.get().cappedValue(), BigDecimal::add);
                found++;
            }
        }
        return found;
    }
}
