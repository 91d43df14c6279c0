package io.kdra.apiserver.storage;

import io.kdra.apiserver.api.ApiException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;

/**
 * The recent history watches resume from. Bounded like etcd's compaction window, in events and in the bytes of the
 * states it holds: a watch that asks for a resourceVersion older than the retained history gets 410 Gone and must
 * re-list. Dropping an event releases the state it carried unless a newer event or the current table still holds it.
 * Not thread-safe; the store guards it.
 */
final class EventLog {

    /** What an event costs besides its object's JSON: the event, its deque slot and the stored object's fields. */
    private static final long EVENT_OVERHEAD_BYTES = 128;

    private final int capacity;
    private final long capacityBytes;
    private final ArrayDeque<WatchEvent> events = new ArrayDeque<>();
    private final ArrayDeque<Long> costs = new ArrayDeque<>();
    private long bytes;
    private long compactedThrough;

    EventLog(int capacity, long capacityBytes) {
        this.capacity = capacity;
        this.capacityBytes = capacityBytes;
    }

    void append(WatchEvent event) {
        long cost = EVENT_OVERHEAD_BYTES + event.stored().json().length;
        events.addLast(event);
        costs.addLast(cost);
        bytes += cost;
        // the newest event stays even when it alone exceeds the budget: a watch from just before it must see it
        while (events.size() > capacity || (bytes > capacityBytes && events.size() > 1)) {
            compactedThrough = events.removeFirst().resourceVersion();
            bytes -= costs.removeFirst();
        }
    }

    /** @return the bytes the retained events account for */
    long bytes() {
        return bytes;
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
        Collections.reverse(result);
        return result;
    }
}
