package io.kdra.apiserver.nodeproxy;

import io.kdra.apiserver.api.ApiException;
import io.kdra.apiserver.json.Json;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;

/** The container a streaming request addresses, chosen and checked as kube-apiserver's validateContainer does. */
final class PodContainers {

    private PodContainers() {}

    /**
     * @param requested the request's container, null or empty for the default
     * @return the requested container, or the pod's only container when none is named
     * @throws ApiException 400 when the pod has no such container (init and ephemeral containers count), or when it
     *     has several and none is named
     */
    static String choose(JsonNode pod, String podName, String requested) {
        List<String> all = names(pod);
        if (requested == null || requested.isEmpty()) {
            JsonNode containers = Json.at(pod, "spec", "containers");
            if (containers.size() == 1) {
                return containers.get(0).path("name").asString();
            }
            if (containers.isEmpty()) {
                throw ApiException.badRequest(String.format("a container name must be specified for pod %s",
                        podName));
            }
            throw ApiException.badRequest(String.format("a container name must be specified for pod %s, choose one "
                    + "of: [%s]", podName, String.join(" ", all)));
        }
        if (!all.contains(requested)) {
            throw ApiException.badRequest(String.format("container %s is not valid for pod %s", requested, podName));
        }
        return requested;
    }

    /** @return the names of the init containers, containers and ephemeral containers, in that order */
    private static List<String> names(JsonNode pod) {
        List<String> names = new ArrayList<>();
        for (String list : List.of("initContainers", "containers", "ephemeralContainers")) {
            for (JsonNode container : Json.at(pod, "spec", list)) {
                names.add(container.path("name").asString(""));
            }
        }
        return names;
    }
}
