package io.kdra.apiserver.lifecycle;

import io.kdra.apiserver.api.ResourceType;
import io.kdra.apiserver.json.Json;
import io.kdra.apiserver.registry.DeleteOptions;
import io.kdra.apiserver.registry.Meta;
import io.kdra.apiserver.storage.WatchEvent;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Namespace deletion: a terminating namespace has its content deleted; once nothing is left (objects with
 * finalizers stay until their finalizers are removed) the {@code kubernetes} finalizer is removed and the namespace
 * goes away.
 */
final class NamespaceController implements Controller {

    private static final String NAMESPACES = "/namespaces";
    private static final String FINALIZER = "kubernetes";

    private final SystemWriter writer;
    private final List<ResourceType> namespacedTypes;
    private final ResourceType namespaceType;
    private final Set<String> terminating = new HashSet<>();

    NamespaceController(SystemWriter writer, List<ResourceType> types) {
        this.writer = writer;
        this.namespacedTypes = types.stream().filter(t -> t.namespaced() && t.ownsStorage()).toList();
        this.namespaceType = types.stream().filter(t -> t.storageKey().equals(NAMESPACES)).findFirst().orElseThrow();
    }

    @Override
    public void handle(WatchEvent event) {
        ObjectNode object = event.object();
        if (event.storageKey().equals(NAMESPACES)) {
            String name = Meta.name(object);
            if (event.type() == WatchEvent.Type.DELETED) {
                terminating.remove(name);
            } else if (Meta.isDeleting(object) && terminating.add(name)) {
                sweep(name);
            }
            return;
        }
        String namespace = Meta.namespace(object);
        if (event.type() == WatchEvent.Type.DELETED && namespace != null && terminating.contains(namespace)) {
            sweep(namespace);
        }
    }

    private void sweep(String namespace) {
        int remaining = 0;
        for (ResourceType type : namespacedTypes) {
            for (ObjectNode object : writer.registry().list(type, namespace).items()) {
                remaining++;
                if (!Meta.isDeleting(object)) {
                    writer.delete(type, namespace, Meta.name(object), Meta.uid(object), DeleteOptions.BACKGROUND);
                }
            }
        }
        if (remaining == 0) {
            writer.patch(namespaceType, null, namespace, false, ns -> {
                List<String> finalizers = new ArrayList<>(Meta.strings(Json.at(ns, "spec", "finalizers")));
                finalizers.remove(FINALIZER);
                ArrayNode array = Json.ensureObject(ns, "spec").putArray("finalizers");
                finalizers.forEach(array::add);
                return ns;
            });
            writer.delete(namespaceType, null, namespace, null, null);
        }
    }
}
