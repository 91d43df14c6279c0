package io.kdra.apiserver.storage;

import io.kdra.apiserver.json.Json;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.node.ObjectNode;

/**
 * A committed object state and its JSON in the storage version. The bytes are made on first use and then shared by
 * every list, get and watcher that serves this state, so an object version is serialised once rather than once per
 * reader. Safe because stored objects are never changed after commit.
 */
public final class StoredObject {

    private final ObjectNode object;
    private volatile byte[] json;

    StoredObject(ObjectNode object) {
        this.object = object;
    }

    public ObjectNode object() {
        return object;
    }

    /** @return the objects of the entries, in order */
    public static List<ObjectNode> objects(List<StoredObject> entries) {
        List<ObjectNode> objects = new ArrayList<>(entries.size());
        for (StoredObject entry : entries) {
            objects.add(entry.object);
        }
        return objects;
    }

    /** @return the object's JSON; callers must not modify the array */
    public byte[] json() {
        byte[] bytes = json;
        if (bytes == null) {
            // Two readers racing here serialise the same immutable object to equal bytes; either result may stay.
            bytes = Json.bytes(object);
            json = bytes;
        }
        return bytes;
    }
}
