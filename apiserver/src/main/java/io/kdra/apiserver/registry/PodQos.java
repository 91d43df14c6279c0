package io.kdra.apiserver.registry;

import io.kdra.apiserver.json.Json;
import io.kdra.kube.FeatureGates;
import io.kdra.kube.PodQosClass;
import io.kdra.kube.Quantity;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import tools.jackson.databind.JsonNode;

/**
 * A pod's quality-of-service class, as kube-apiserver sets {@code status.qosClass} on create and compares it on
 * resize: {@link PodQosClass} on the stored JSON. An amount that does not parse is left out (validation rejects it).
 */
final class PodQos {

    private PodQos() {}

    static String of(JsonNode pod, FeatureGates gates) {
        List<PodQosClass.Requirements> containers = new ArrayList<>();
        for (String list : List.of("containers", "initContainers")) {
            for (JsonNode container : Json.at(pod, "spec", list)) {
                containers.add(requirements(container.path("resources")));
            }
        }
        JsonNode podLevel = Json.at(pod, "spec", "resources");
        return PodQosClass.of(podLevel.isObject() ? requirements(podLevel) : null, containers, gates);
    }

    private static PodQosClass.Requirements requirements(JsonNode resources) {
        return new PodQosClass.Requirements(list(resources.path("requests")), list(resources.path("limits")));
    }

    private static Map<String, Quantity> list(JsonNode list) {
        Map<String, Quantity> quantities = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> entry : list.properties()) {
            JsonNode value = entry.getValue();
            Optional<Quantity> quantity = value.isString() ? Quantity.tryParse(value.stringValue())
                    : value.isNumber() ? Quantity.tryParse(value.asString()) : Optional.empty();
            quantity.ifPresent(parsed -> quantities.put(entry.getKey(), parsed));
        }
        return quantities;
    }
}
