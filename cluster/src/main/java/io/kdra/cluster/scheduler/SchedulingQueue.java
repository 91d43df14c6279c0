package io.kdra.cluster.scheduler;

import io.kdra.cluster.Timing;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;

/**
 * kube-scheduler's scheduling queue in small: an active queue (higher priority first, then first come), a backoff
 * queue (pods wait {@link Timing#schedulerInitialBackoff()}, upstream 1 s, doubling up to
 * {@link Timing#schedulerMaxBackoff()}, 10 s, per failed attempt before another try) and the unschedulable pods,
 * which wait for a cluster event that may help them (or at most {@link Timing#podMaxInUnschedulablePodsDuration()},
 * 5 minutes). Pods being scheduled or bound are "in flight" and in none of the three. Not thread-safe: the scheduling
 * thread owns it.
 */
final class SchedulingQueue {

    private final long initialBackoffNanos;
    private final long maxBackoffNanos;
    private final long maxUnschedulableNanos;

    enum Where { ACTIVE, BACKOFF, UNSCHEDULABLE, IN_FLIGHT }

    /** One pod in the queue. */
    static final class Entry {
        final String key;
        int priority;
        long sequence;
        int attempts;
        long backoffExpiry;
        long unschedulableSince;
        Where where;
        /** Rejected by the DRA plugin (or waiting for its claims), so DRA events may help it. */
        boolean rejectedByDra;
        /** Waiting for its claims to exist (upstream's PreEnqueue); only claim and pod events help. */
        boolean waitingForClaims;
        /** The claims the pod uses, for claim events. */
        Set<String> claimKeys = Set.of();

        Entry(String key, int priority) {
            this.key = key;
            this.priority = priority;
        }
    }

    private final Map<String, Entry> entries = new HashMap<>();
    private final TreeSet<Entry> active = new TreeSet<>(Comparator.<Entry>comparingInt(e -> -e.priority)
            .thenComparingLong(e -> e.sequence));
    private final TreeSet<Entry> backoff = new TreeSet<>(Comparator.<Entry>comparingLong(e -> e.backoffExpiry)
            .thenComparingLong(e -> e.sequence));
    private final Map<String, Entry> unschedulable = new LinkedHashMap<>();
    private final Map<String, Set<String>> unschedulableByClaim = new HashMap<>();
    private long sequence;

    SchedulingQueue(Timing timing) {
        this.initialBackoffNanos = timing.schedulerInitialBackoff().toNanos();
        this.maxBackoffNanos = timing.schedulerMaxBackoff().toNanos();
        this.maxUnschedulableNanos = timing.podMaxInUnschedulablePodsDuration().toNanos();
    }

    Entry get(String key) {
        return entries.get(key);
    }

    Entry newEntry(String key, int priority) {
        Entry entry = new Entry(key, priority);
        entries.put(key, entry);
        return entry;
    }

    void remove(String key) {
        Entry entry = entries.remove(key);
        if (entry != null) {
            detach(entry);
        }
    }

    /** To the active queue, or to the backoff queue while its backoff lasts. */
    void activateOrBackoff(Entry entry, long now) {
        detach(entry);
        if (entry.backoffExpiry > now) {
            entry.where = Where.BACKOFF;
            entry.sequence = ++sequence;
            backoff.add(entry);
        } else {
            entry.where = Where.ACTIVE;
            entry.sequence = ++sequence;
            active.add(entry);
        }
    }

    /** After a failed attempt: to the backoff queue. */
    void backoff(Entry entry, long now) {
        detach(entry);
        entry.backoffExpiry = now + backoffNanos(entry.attempts);
        activateOrBackoff(entry, now);
    }

    /** After a failed attempt that only a cluster event can change. */
    void parkUnschedulable(Entry entry, long now) {
        detach(entry);
        entry.backoffExpiry = entry.attempts == 0 ? now : now + backoffNanos(entry.attempts);
        entry.unschedulableSince = now;
        entry.where = Where.UNSCHEDULABLE;
        unschedulable.put(entry.key, entry);
        index(entry);
    }

    private void index(Entry entry) {
        for (String claim : entry.claimKeys) {
            unschedulableByClaim.computeIfAbsent(claim, k -> new HashSet<>()).add(entry.key);
        }
    }

    private void unindex(Entry entry) {
        for (String claim : entry.claimKeys) {
            Set<String> keys = unschedulableByClaim.get(claim);
            if (keys != null && keys.remove(entry.key) && keys.isEmpty()) {
                unschedulableByClaim.remove(claim);
            }
        }
    }

    /** Records the claims a pod uses, keeping the index of unschedulable pods by claim right. */
    void useClaims(Entry entry, Set<String> claimKeys) {
        boolean indexed = entry.where == Where.UNSCHEDULABLE;
        if (indexed) {
            unindex(entry);
        }
        entry.claimKeys = claimKeys;
        if (indexed) {
            index(entry);
        }
    }

    /** The next pod to schedule, now in flight; first moves due pods from the backoff and unschedulable pools. */
    Entry pop(long now) {
        while (!backoff.isEmpty() && backoff.first().backoffExpiry <= now) {
            Entry entry = backoff.pollFirst();
            entry.where = Where.ACTIVE;
            entry.sequence = ++sequence;
            active.add(entry);
        }
        if (!unschedulable.isEmpty()) {
            long limit = now - maxUnschedulableNanos;
            List<Entry> due = new ArrayList<>();
            for (Entry entry : unschedulable.values()) {
                if (entry.unschedulableSince > limit) {
                    break;
                }
                due.add(entry);
            }
            due.forEach(entry -> activateOrBackoff(entry, now));
        }
        Entry next = active.pollFirst();
        if (next != null) {
            next.where = Where.IN_FLIGHT;
            next.attempts++;
        }
        return next;
    }

    /** Nanoseconds until a pod becomes due, or {@code Long.MAX_VALUE}. */
    long nanosUntilDue(long now) {
        long due = Long.MAX_VALUE;
        if (!backoff.isEmpty()) {
            due = backoff.first().backoffExpiry - now;
        }
        if (!unschedulable.isEmpty()) {
            Entry oldest = unschedulable.values().iterator().next();
            due = Math.min(due, oldest.unschedulableSince + maxUnschedulableNanos - now);
        }
        return Math.max(0, due);
    }

    /** The unschedulable pods an event may help (they stay where they are until moved). */
    List<Entry> unschedulableMatching(Predicate<Entry> mayHelp) {
        List<Entry> matching = new ArrayList<>();
        for (Entry entry : unschedulable.values()) {
            if (mayHelp.test(entry)) {
                matching.add(entry);
            }
        }
        return matching;
    }

    /** The unschedulable pods that use the claim. */
    List<Entry> unschedulableUsing(String claimKey) {
        Set<String> keys = unschedulableByClaim.get(claimKey);
        if (keys == null) {
            return List.of();
        }
        List<Entry> using = new ArrayList<>(keys.size());
        keys.forEach(key -> using.add(unschedulable.get(key)));
        return using;
    }

    private void detach(Entry entry) {
        if (entry.where == null) {
            return;
        }
        switch (entry.where) {
            case ACTIVE -> active.remove(entry);
            case BACKOFF -> backoff.remove(entry);
            case UNSCHEDULABLE -> {
                unschedulable.remove(entry.key);
                unindex(entry);
            }
            case IN_FLIGHT -> { }
        }
        entry.where = null;
    }

    private long backoffNanos(int attempts) {
        long nanos = initialBackoffNanos;
        for (int i = 1; i < attempts && nanos < maxBackoffNanos; i++) {
            nanos *= 2;
        }
        return Math.min(nanos, maxBackoffNanos);
    }
}
