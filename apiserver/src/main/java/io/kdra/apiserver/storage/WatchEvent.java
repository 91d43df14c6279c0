package io.kdra.apiserver.storage;

import tools.jackson.databind.node.ObjectNode;

/**
 * One committed change. {@code object} is the state after the change (for DELETED the last state, carrying the
 * deletion's resourceVersion); {@code previous} the state before it, or null for ADDED. Both are immutable.
 */
public record WatchEvent(Type type, String storageKey, ObjectNode object, ObjectNode previous, long resourceVersion) {

    public enum Type {
        ADDED,
        MODIFIED,
        DELETED,
        BOOKMARK
    }
}
