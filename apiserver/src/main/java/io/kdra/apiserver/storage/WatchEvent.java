package io.kdra.apiserver.storage;

import tools.jackson.databind.node.ObjectNode;

/**
 * One committed change. {@code stored} is the state after the change (for DELETED the last state, carrying the
 * deletion's resourceVersion; null only for a BOOKMARK without an object); {@code prior} the state before it, or
 * null for ADDED. Both are immutable.
 */
public record WatchEvent(Type type, String storageKey, StoredObject stored, StoredObject prior,
        long resourceVersion) {

    public enum Type {
        ADDED,
        MODIFIED,
        DELETED,
        BOOKMARK
    }

    /**
     * @param object carries the bookmark's annotations (such as the end of the initial events), or null for a plain
     *     progress bookmark
     */
    public static WatchEvent bookmark(String storageKey, ObjectNode object, long resourceVersion) {
        return new WatchEvent(Type.BOOKMARK, storageKey, object == null ? null : new StoredObject(object), null,
                resourceVersion);
    }

    /** @return the state after the change, or null */
    public ObjectNode object() {
        return stored == null ? null : stored.object();
    }

    /** @return the state before the change, or null */
    public ObjectNode previous() {
        return prior == null ? null : prior.object();
    }

    /**
     * @return the change as a watcher sees it whose filter matched the previous state and no longer matches: a
     *     DELETED event carrying the previous state with this change's resourceVersion, as kube-apiserver's watch
     *     cache sends it
     */
    public WatchEvent asLeavingFilter() {
        ObjectNode last = previous().deepCopy();
        ((ObjectNode) last.get("metadata")).put("resourceVersion", Long.toString(resourceVersion));
        return new WatchEvent(Type.DELETED, storageKey, new StoredObject(last), prior, resourceVersion);
    }

    /** @return the same change seen as another type, sharing the object and its bytes */
    public WatchEvent withType(Type newType) {
        return newType == type ? this : new WatchEvent(newType, storageKey, stored, prior, resourceVersion);
    }
}
