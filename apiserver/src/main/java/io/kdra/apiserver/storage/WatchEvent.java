package io.kdra.apiserver.storage;

import tools.jackson.databind.node.ObjectNode;

/**
 * One committed change. {@code stored} is the state after the change (for DELETED the last state, carrying the
 * deletion's resourceVersion; null only for a BOOKMARK without an object); {@code previous} the state before it, or
 * null for ADDED. Both are immutable.
 */
public record WatchEvent(Type type, String storageKey, StoredObject stored, ObjectNode previous, long resourceVersion) {

    public enum Type {
        ADDED,
        MODIFIED,
        DELETED,
        BOOKMARK
    }

    /** An event whose object is not shared with the store (bookmarks, markers). */
    public WatchEvent(Type type, String storageKey, ObjectNode object, ObjectNode previous, long resourceVersion) {
        this(type, storageKey, object == null ? null : new StoredObject(object), previous, resourceVersion);
    }

    /** @return the state after the change, or null */
    public ObjectNode object() {
        return stored == null ? null : stored.object();
    }

    /** @return the same change seen as another type, sharing the object and its bytes */
    public WatchEvent withType(Type newType) {
        return newType == type ? this : new WatchEvent(newType, storageKey, stored, previous, resourceVersion);
    }
}
