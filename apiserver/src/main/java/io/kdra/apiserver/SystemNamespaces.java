package io.kdra.apiserver;

import io.kdra.apiserver.api.ApiException;
import io.kdra.apiserver.api.ResourceType;
import io.kdra.apiserver.auth.Authenticator;
import io.kdra.apiserver.json.Json;
import io.kdra.apiserver.registry.Registry;
import io.kdra.apiserver.registry.WriteContext;
import java.util.List;
import tools.jackson.databind.node.ObjectNode;

/** The namespaces kube-apiserver creates at start, unless they are stored from an earlier start. */
final class SystemNamespaces {

    static final List<String> NAMES = List.of("default", "kube-system", "kube-public", "kube-node-lease");

    private SystemNamespaces() {}

    static void create(Registry registry) {
        ResourceType namespaces = registry.kinds().findByKind("", "Namespace").orElseThrow();
        WriteContext context = new WriteContext(Authenticator.ADMIN, false, "kube-apiserver");
        for (String name : NAMES) {
            ObjectNode namespace = Json.object();
            namespace.put("apiVersion", "v1");
            namespace.put("kind", "Namespace");
            namespace.putObject("metadata").put("name", name);
            try {
                registry.create(namespaces, null, namespace, context);
            } catch (ApiException e) {
                if (!"AlreadyExists".equals(e.reason())) {
                    throw e;
                }
            }
        }
    }
}
