package io.kdra.apiserver.api;

import tools.jackson.databind.node.ObjectNode;

/**
 * Removes the fields of disabled features from an object being written, as the {@code PrepareForCreate} and
 * {@code PrepareForUpdate} of kube-apiserver's strategies do ({@code dropDisabledFields}): a field is dropped only when
 * the stored object does not use the feature already, so that unrelated updates keep it.
 */
@FunctionalInterface
public interface DisabledFields {

    /**
     * @param object the object being written, in the storage version; changed in place
     * @param old the stored object, or null on create
     */
    void drop(ObjectNode object, ObjectNode old);
}
