package io.kdra.apiserver.storage;

import java.util.List;

/**
 * Receives the events of one resource from the store. Calls happen under the store's write lock, so implementations
 * must only enqueue and return at once: a subscriber that cannot keep up must drop itself, never block.
 */
public interface WatchSubscriber {

    /** The events that precede live delivery: a replay from history or the synthetic ADDED of the current state. */
    void start(List<WatchEvent> initial, long resourceVersion);

    /** @return false when the subscriber is gone or overflowed and must be removed */
    boolean offer(WatchEvent event);
}
