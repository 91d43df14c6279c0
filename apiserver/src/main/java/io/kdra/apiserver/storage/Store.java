package io.kdra.apiserver.storage;

import io.kdra.apiserver.json.Json;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import tools.jackson.databind.node.ObjectNode;

/**
 * The in-memory object store: one sorted table per resource, one global monotonic resourceVersion, a bounded history
 * and the watch subscribers. Writes are serialised by one lock, so a read-modify-write is atomic; reads do not lock.
 * Stored objects are immutable: callers copy before changing one.
 *
 * <p>Delivering a change to the watchers happens after the write lock is released, under a second lock that the
 * writer takes before releasing the first: deliveries therefore run in commit order, one at a time, while the next
 * write already computes its change. A watch starts holding both locks, when every committed change has been
 * delivered, so it gets each change exactly once: in its initial events or live.
 */
public final class Store {

    private final ReentrantLock lock = new ReentrantLock();
    /** Taken after {@link #lock} when both are needed; guards the subscribers and the delivered resourceVersion. */
    private final ReentrantLock deliveryLock = new ReentrantLock();
    private final Map<String, ConcurrentSkipListMap<String, StoredObject>> tables = new ConcurrentHashMap<>();
    private final Map<String, WatcherIndex> subscribers = new HashMap<>();
    private final List<Consumer<WatchEvent>> listeners = new CopyOnWriteArrayList<>();
    private final EventLog history;
    private volatile long resourceVersion;
    /** The resourceVersion of the last change delivered to the watchers. */
    private long deliveredVersion;

    /** @param historySize how many events watches can resume from */
    public Store(int historySize) {
        this(historySize, Long.MAX_VALUE);
    }

    /**
     * @param historySize how many events watches can resume from
     * @param historyBytes how many bytes of object JSON the history may hold; the oldest events go first
     */
    public Store(int historySize, long historyBytes) {
        this.history = new EventLog(historySize, historyBytes);
    }

    /** @return the bytes of object JSON the watch history holds, for memory checks */
    public long historyBytes() {
        lock.lock();
        try {
            return history.bytes();
        } finally {
            lock.unlock();
        }
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
     * Registers a callback for every committed change of every resource, called in commit order while the change is
     * delivered: it must only hand the event over (controllers such as garbage collection queue it).
     */
    public void addListener(Consumer<WatchEvent> listener) {
        listeners.add(listener);
    }

    /** Unregisters a callback of {@link #addListener}, for controllers that stop while the store lives on. */
    public void removeListener(Consumer<WatchEvent> listener) {
        listeners.remove(listener);
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
        WatchEvent event;
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
            if (change.kind() == Change.Kind.PUT) {
                table.put(key, stored);
                event = new WatchEvent(current == null ? WatchEvent.Type.ADDED : WatchEvent.Type.MODIFIED, storageKey,
                        stored, currentEntry, next);
            } else {
                table.remove(key);
                event = new WatchEvent(WatchEvent.Type.DELETED, storageKey, stored, currentEntry, next);
            }
            resourceVersion = next;
            history.append(event);
            deliveryLock.lock();
        } finally {
            lock.unlock();
        }
        ObjectNode committed = event.object();
        try {
            deliver(event);
            // delivered: from now on only the history reads the states no longer current
            if (event.prior() != null) {
                event.prior().compact();
            }
            if (event.type() == WatchEvent.Type.DELETED) {
                event.stored().compact();
            }
        } finally {
            deliveryLock.unlock();
        }
        return committed;
    }

    /**
     * Subscribes to a resource. With {@code fromResourceVersion} null the subscriber starts with a synthetic ADDED
     * event per current object; otherwise with the history after that version (410 Gone when it is compacted).
     */
    public void watch(String storageKey, Long fromResourceVersion, WatchSubscriber subscriber) {
        NavigableMap<String, StoredObject> table = table(storageKey);
        lock.lock();
        try {
            deliveryLock.lock();
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
                subscribers.computeIfAbsent(storageKey, k -> new WatcherIndex()).add(subscriber);
            } finally {
                deliveryLock.unlock();
            }
        } finally {
            lock.unlock();
        }
    }

    public void unwatch(String storageKey, WatchSubscriber subscriber) {
        deliveryLock.lock();
        try {
            WatcherIndex index = subscribers.get(storageKey);
            if (index != null) {
                index.remove(subscriber);
            }
        } finally {
            deliveryLock.unlock();
        }
    }

    /** Offers a BOOKMARK at the last delivered resourceVersion, ordered after every event already delivered. */
    public void bookmark(String storageKey, WatchSubscriber subscriber) {
        deliveryLock.lock();
        try {
            if (!subscriber.offer(WatchEvent.bookmark(storageKey, null, deliveredVersion))) {
                unwatch(storageKey, subscriber);
            }
        } finally {
            deliveryLock.unlock();
        }
    }

    private void deliver(WatchEvent event) {
        deliveredVersion = event.resourceVersion();
        WatcherIndex index = subscribers.get(event.storageKey());
        if (index != null) {
            index.deliver(event);
        }
        for (Consumer<WatchEvent> listener : listeners) {
            listener.accept(event);
        }
    }

    private NavigableMap<String, StoredObject> table(String storageKey) {
        return tables.computeIfAbsent(storageKey, k -> new ConcurrentSkipListMap<>());
    }

    private static String key(String namespace, String name) {
        return (namespace == null ? "" : namespace) + "/" + name;
    }
}
