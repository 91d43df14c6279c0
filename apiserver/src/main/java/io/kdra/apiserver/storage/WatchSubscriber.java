package io.kdra.apiserver.storage;

import java.util.List;
import java.util.function.Function;
import tools.jackson.databind.node.ObjectNode;

/**
 * Receives the events of one resource from the store, in commit order. Calls happen while the store delivers an
 * event to every subscriber, so implementations must only enqueue and return at once: a subscriber that cannot keep
 * up must drop itself, never block.
 */
public interface WatchSubscriber {

    /**
     * One field value every object the subscriber can see has, such as {@code spec.nodeName=node-7} or the namespace.
     * The store then offers the subscriber only the changes whose new or previous state has that value, so an event
     * costs nothing for the subscribers it cannot concern.
     *
     * @param field names the field; subscribers naming the same field of a resource must read it alike
     * @param reader the field's value in an object, never null
     */
    record IndexKey(String field, String value, Function<ObjectNode, String> reader) {}

    /** The events that precede live delivery: a replay from history or the synthetic ADDED of the current state. */
    void start(List<WatchEvent> initial, long resourceVersion);

    /** @return false when the subscriber is gone or overflowed and must be removed */
    boolean offer(WatchEvent event);

    /**
     * @return the field value the subscriber requires, or null to be offered every change of the resource; the same
     *     every time it is asked
     */
    default IndexKey indexKey() {
        return null;
    }
}
