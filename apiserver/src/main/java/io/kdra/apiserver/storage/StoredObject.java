package io.kdra.apiserver.storage;

import io.kdra.apiserver.json.Json;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;
import tools.jackson.databind.node.ObjectNode;

/**
 * A committed object state and its JSON in the storage version. The bytes are made on first use and then shared by
 * every list, get and watcher that serves this state, so an object version is serialised once rather than once per
 * reader; likewise its JSON in each other API version that is read, at most one array per served apiVersion (the
 * group counts: events.k8s.io/v1 and core v1 Events are the same stored objects). Safe because stored objects are
 * never changed after commit and conversion depends on nothing else.
 *
 * <p>Once a state is no longer current (superseded or deleted) only the watch history holds it, where it is rarely
 * read again: the store then {@link #compact}s it to its JSON, which takes a fraction of the tree's memory, and a
 * later read parses the JSON again.
 */
public final class StoredObject {

    /** Null once compacted. */
    private volatile ObjectNode object;
    private volatile byte[] json;
    /** By apiVersion other than the stored one, e.g. {@code events.k8s.io/v1}; made with the first such read. */
    private volatile Map<String, byte[]> converted;

    StoredObject(ObjectNode object) {
        this.object = object;
    }

    /** @return the object; equal to, though after {@link #compact} not the same as, the one committed */
    public ObjectNode object() {
        ObjectNode tree = object;
        return tree != null ? tree : (ObjectNode) Json.parse(json);
    }

    /** Keeps only the JSON, dropping the tree; for states that only the history still holds. */
    void compact() {
        json();
        object = null;
    }

    /**
     * @param apiVersion group and version other than the stored object's, e.g. {@code resource.k8s.io/v1beta1}
     * @param conversion turns this object into that version; called once per apiVersion, whoever asks
     * @return the converted object's JSON; callers must not modify the array
     */
    public byte[] json(String apiVersion, UnaryOperator<ObjectNode> conversion) {
        Map<String, byte[]> byVersion = converted;
        if (byVersion == null) {
            synchronized (this) {
                if (converted == null) {
                    converted = new ConcurrentHashMap<>(4);
                }
                byVersion = converted;
            }
        }
        return byVersion.computeIfAbsent(apiVersion, v -> Json.bytes(conversion.apply(object())));
    }

    /** @return the objects of the entries, in order */
    public static List<ObjectNode> objects(List<StoredObject> entries) {
        List<ObjectNode> objects = new ArrayList<>(entries.size());
        for (StoredObject entry : entries) {
            objects.add(entry.object());
        }
        return objects;
    }

    /** @return the object's JSON; callers must not modify the array */
    public byte[] json() {
        byte[] bytes = json;
        if (bytes == null) {
            // Two readers racing here serialise the same immutable object to equal bytes; either result may stay.
            // The tree is still there: compaction sets the bytes before it drops the tree.
            bytes = Json.bytes(object);
            json = bytes;
        }
        return bytes;
    }
}
