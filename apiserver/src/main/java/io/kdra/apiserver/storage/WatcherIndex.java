package io.kdra.apiserver.storage;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import tools.jackson.databind.node.ObjectNode;

/**
 * The subscribers of one resource, grouped by the field value they require ({@link WatchSubscriber#indexKey}), so
 * that delivering a change offers it only to the subscribers whose value the new or previous state has, and to those
 * that require none. A subscriber sees the same events as if offered every change: one whose required value neither
 * state has matches neither state. Each subscriber sits in one group, so it is offered a change at most once. Not
 * thread-safe; the store guards it.
 */
final class WatcherIndex {

    private final List<WatchSubscriber> unindexed = new ArrayList<>();
    private final Map<String, FieldGroups> byField = new HashMap<>();

    /** The subscribers requiring a value of one field, by value. */
    private static final class FieldGroups {
        final Function<ObjectNode, String> reader;
        final Map<String, List<WatchSubscriber>> byValue = new HashMap<>();

        FieldGroups(Function<ObjectNode, String> reader) {
            this.reader = reader;
        }
    }

    void add(WatchSubscriber subscriber) {
        WatchSubscriber.IndexKey key = subscriber.indexKey();
        if (key == null) {
            unindexed.add(subscriber);
            return;
        }
        byField.computeIfAbsent(key.field(), field -> new FieldGroups(key.reader()))
                .byValue.computeIfAbsent(key.value(), value -> new ArrayList<>(1)).add(subscriber);
    }

    void remove(WatchSubscriber subscriber) {
        WatchSubscriber.IndexKey key = subscriber.indexKey();
        if (key == null) {
            unindexed.remove(subscriber);
            return;
        }
        FieldGroups groups = byField.get(key.field());
        if (groups == null) {
            return;
        }
        List<WatchSubscriber> group = groups.byValue.get(key.value());
        if (group != null && group.remove(subscriber) && group.isEmpty()) {
            groups.byValue.remove(key.value());
            if (groups.byValue.isEmpty()) {
                byField.remove(key.field());
            }
        }
    }

    /** Offers the change to every subscriber it may concern; drops those that refuse it. */
    void deliver(WatchEvent event) {
        List<WatchSubscriber> refused = offer(unindexed, event, null);
        ObjectNode now = event.object();
        ObjectNode before = event.previous();
        for (FieldGroups groups : byField.values()) {
            String nowValue = now == null ? null : groups.reader.apply(now);
            String beforeValue = before == null ? null : groups.reader.apply(before);
            if (nowValue != null) {
                refused = offer(groups.byValue.get(nowValue), event, refused);
            }
            if (beforeValue != null && !beforeValue.equals(nowValue)) {
                refused = offer(groups.byValue.get(beforeValue), event, refused);
            }
        }
        if (refused != null) {
            refused.forEach(this::remove);
        }
    }

    /** @return {@code refused} with the subscribers of the group that refused the event, made when first needed */
    private static List<WatchSubscriber> offer(List<WatchSubscriber> group, WatchEvent event,
            List<WatchSubscriber> refused) {
        if (group == null) {
            return refused;
        }
        List<WatchSubscriber> result = refused;
        for (WatchSubscriber subscriber : group) {
            if (!subscriber.offer(event)) {
                if (result == null) {
                    result = new ArrayList<>(1);
                }
                result.add(subscriber);
            }
        }
        return result;
    }
}
