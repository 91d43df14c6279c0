package io.kdra.apiserver.registry;

import io.kdra.apiserver.api.ApiException;
import io.kdra.apiserver.api.ResourceType;
import io.kdra.apiserver.storage.Store;
import tools.jackson.databind.node.ObjectNode;

/** The NamespaceLifecycle admission check: namespaced objects need an existing namespace that is not terminating. */
final class NamespaceLifecycle {

    static final String NAMESPACES = "/namespaces";

    private NamespaceLifecycle() {}

    static void checkCreate(Store store, ResourceType type, String namespace, String name) {
        ObjectNode ns = store.get(NAMESPACES, null, namespace);
        if (ns == null) {
            throw ApiException.of(404, "NotFound", String.format("namespaces \"%s\" not found", namespace),
                    ApiException.details(namespace, "", "namespaces"));
        }
        if (Meta.isDeleting(ns)) {
            throw ApiException.forbidden(type, name, String.format(
                    "unable to create new content in namespace %s because it is being terminated", namespace));
        }
    }
}
