package io.kdra.apiserver.storage;

import io.kdra.apiserver.api.ApiException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * The recent history watches resume from. Bounded like etcd's compaction window: a watch that asks for a
 * resourceVersion older than the retained history gets 410 Gone and must re-list. Not thread-safe; the store guards it.
 */
final class EventLog {

    private final int capacity;
    private final ArrayDeque<WatchEvent> events = new ArrayDeque<>();
    private long compactedThrough;

    EventLog(int capacity) {
        this.capacity = capacity;
    }

    void append(WatchEvent event) {
        if (events.size() == capacity) {
            compactedThrough = events.removeFirst().resourceVersion();
        }
        events.addLast(event);
    }

    /** @return the events of the resource after the given resourceVersion, oldest first */
    List<WatchEvent> since(String storageKey, long resourceVersion) {
        if (resourceVersion < compactedThrough) {
            throw ApiException.gone(String.format("too old resource version: %d (%d)", resourceVersion, compactedThrough + 1));
        }
        List<WatchEvent> result = new ArrayList<>();
        for (Iterator<WatchEvent> it = events.descendingIterator(); it.hasNext(); ) {
            WatchEvent event = it.next();
            if (event.resourceVersion() <= resourceVersion) {
                break;
            }
            if (event.storageKey().equals(storageKey)) {
                result.add(event);
            }
        }
        java.util.Collections.reverse(result);
        return result;
    }
}
