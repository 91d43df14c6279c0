package io.kdra.apiserver.storage;

import io.kdra.apiserver.json.Json;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.ReentrantLock;
import tools.jackson.databind.node.ObjectNode;

/**
 * The in-memory object store: one sorted table per resource, one global monotonic resourceVersion, a bounded history
 * and the watch subscribers. Writes are serialised by one lock, so a read-modify-write is atomic and watch events
 * are delivered in commit order; reads do not lock. Stored objects are immutable: callers copy before changing one.
 */
public final class Store {

    private final ReentrantLock lock = new ReentrantLock();
    private final Map<String, ConcurrentSkipListMap<String, StoredObject>> tables = new ConcurrentHashMap<>();
    private final Map<String, List<WatchSubscriber>> subscribers = new ConcurrentHashMap<>();
    private final List<java.util.function.Consumer<WatchEvent>> listeners = new CopyOnWriteArrayList<>();
    private final EventLog history;
    private volatile long resourceVersion;

    /** @param historySize how many events watches can resume from */
    public Store(int historySize) {
        this.history = new EventLog(historySize);
    }

    /** A change computed from the current object (null when absent); runs under the write lock. */
    @FunctionalInterface
    public interface Mutation {
        Change apply(ObjectNode current);
    }

    /** What a mutation decided. */
    public record Change(Kind kind, ObjectNode object) {
        public enum Kind {
            NONE,
            PUT,
            DELETE
        }

        public static Change none(ObjectNode current) {
            return new Change(Kind.NONE, current);
        }

        public static Change put(ObjectNode object) {
            return new Change(Kind.PUT, object);
        }

        public static Change delete(ObjectNode last) {
            return new Change(Kind.DELETE, last);
        }
    }

    /** A consistent list: the entries and the resourceVersion they are current at. */
    public record Snapshot(List<StoredObject> entries, long resourceVersion) {

        /** @return the objects of the entries */
        public List<ObjectNode> items() {
            return StoredObject.objects(entries);
        }
    }

    /**
     * Registers a callback for every committed change of every resource, called in commit order under the write
     * lock: it must only hand the event over (controllers such as garbage collection queue it).
     */
    public void addListener(java.util.function.Consumer<WatchEvent> listener) {
        listeners.add(listener);
    }

    public long resourceVersion() {
        return resourceVersion;
    }

    public ObjectNode get(String storageKey, String namespace, String name) {
        StoredObject stored = getStored(storageKey, namespace, name);
        return stored == null ? null : stored.object();
    }

    /** @return the object with its shared JSON, or null when absent */
    public StoredObject getStored(String storageKey, String namespace, String name) {
        NavigableMap<String, StoredObject> table = tables.get(storageKey);
        return table == null ? null : table.get(key(namespace, name));
    }

    /** @param namespace null for all namespaces */
    public Snapshot list(String storageKey, String namespace) {
        NavigableMap<String, StoredObject> table = table(storageKey);
        lock.lock();
        try {
            NavigableMap<String, StoredObject> range =
                    namespace == null ? table : table.subMap(namespace + "/", true, namespace + "0", false);
            return new Snapshot(new ArrayList<>(range.values()), resourceVersion);
        } finally {
            lock.unlock();
        }
    }

    /** @return how many objects the resource has in the namespace (null: in all namespaces) */
    public int count(String storageKey, String namespace) {
        NavigableMap<String, StoredObject> table = table(storageKey);
        return namespace == null ? table.size() : table.subMap(namespace + "/", true, namespace + "0", false).size();
    }

    /**
     * Applies a mutation atomically. A PUT gets the next resourceVersion and is stored; a DELETE removes the object
     * and its last state gets the deletion's resourceVersion. With {@code dryRun} nothing is committed.
     *
     * @return the object after the change (for DELETE its last state)
     */
    public ObjectNode write(String storageKey, String namespace, String name, boolean dryRun, Mutation mutation) {
        String key = key(namespace, name);
        NavigableMap<String, StoredObject> table = table(storageKey);
        lock.lock();
        try {
            StoredObject currentEntry = table.get(key);
            ObjectNode current = currentEntry == null ? null : currentEntry.object();
            Change change = mutation.apply(current);
            if (change.kind() == Change.Kind.NONE || dryRun) {
                return change.object();
            }
            long next = resourceVersion + 1;
            ObjectNode object = change.object();
            Json.metadata(object).put("resourceVersion", Long.toString(next));
            StoredObject stored = new StoredObject(object);
            WatchEvent event;
            if (change.kind() == Change.Kind.PUT) {
                table.put(key, stored);
                event = new WatchEvent(current == null ? WatchEvent.Type.ADDED : WatchEvent.Type.MODIFIED, storageKey,
                        stored, current, next);
            } else {
                table.remove(key);
                event = new WatchEvent(WatchEvent.Type.DELETED, storageKey, stored, current, next);
            }
            resourceVersion = next;
            history.append(event);
            dispatch(event);
            for (java.util.function.Consumer<WatchEvent> listener : listeners) {
                listener.accept(event);
            }
            return object;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Subscribes to a resource. With {@code fromResourceVersion} null the subscriber starts with a synthetic ADDED
     * event per current object; otherwise with the history after that version (410 Gone when it is compacted).
     */
    public void watch(String storageKey, Long fromResourceVersion, WatchSubscriber subscriber) {
        NavigableMap<String, StoredObject> table = table(storageKey);
        lock.lock();
        try {
            List<WatchEvent> initial;
            if (fromResourceVersion == null) {
                initial = new ArrayList<>(table.size());
                for (StoredObject object : table.values()) {
                    initial.add(new WatchEvent(WatchEvent.Type.ADDED, storageKey, object, null, resourceVersion));
                }
            } else {
                initial = history.since(storageKey, fromResourceVersion);
            }
            subscriber.start(initial, resourceVersion);
            subscribers.computeIfAbsent(storageKey, k -> new CopyOnWriteArrayList<>()).add(subscriber);
        } finally {
            lock.unlock();
        }
    }

    public void unwatch(String storageKey, WatchSubscriber subscriber) {
        List<WatchSubscriber> list = subscribers.get(storageKey);
        if (list != null) {
            list.remove(subscriber);
        }
    }

    /** Offers a BOOKMARK at the current resourceVersion, ordered after every event already delivered. */
    public void bookmark(String storageKey, WatchSubscriber subscriber) {
        lock.lock();
        try {
            if (!subscriber.offer(WatchEvent.bookmark(storageKey, null, resourceVersion))) {
                unwatch(storageKey, subscriber);
            }
        } finally {
            lock.unlock();
        }
    }

    private void dispatch(WatchEvent event) {
        List<WatchSubscriber> list = subscribers.get(event.storageKey());
        if (list == null) {
            return;
        }
        for (WatchSubscriber subscriber : list) {
            if (!subscriber.offer(event)) {
                list.remove(subscriber);
            }
        }
    }

    private NavigableMap<String, StoredObject> table(String storageKey) {
        return tables.computeIfAbsent(storageKey, k -> new ConcurrentSkipListMap<>());
    }

    private static String key(String namespace, String name) {
        return (namespace == null ? "" : namespace) + "/" + name;
    }
}
