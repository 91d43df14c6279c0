package io.kdra.cluster.controller;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Upstream's {@code ControllerExpectations}: the pod creations and deletions a controller's sync made that its pod
 * informer has not shown yet. While some are outstanding, a sync must not act on the pods again (it would create or
 * delete twice); after {@link #TIMEOUT} it acts anyway, as upstream, in case an event was lost.
 *
 * @param <K> the controller's key
 */
final class PodExpectations<K> {

    private static final Duration TIMEOUT = Duration.ofMinutes(5);

    private static final class Pending {
        int adds;
        int deletes;
        final Instant since = Instant.now();
    }

    private final Map<K, Pending> pending = new ConcurrentHashMap<>();

    /** Whether a sync may create or delete pods for the key. */
    boolean satisfied(K key) {
        Pending expected = pending.get(key);
        if (expected == null) {
            return true;
        }
        synchronized (expected) {
            return expected.adds <= 0 && expected.deletes <= 0 || Instant.now().isAfter(expected.since.plus(TIMEOUT));
        }
    }

    /** Records what a sync is about to do, replacing what was expected before. */
    void expect(K key, int adds, int deletes) {
        Pending expected = new Pending();
        expected.adds = adds;
        expected.deletes = deletes;
        pending.put(key, expected);
    }

    /** Creations that will never be observed because they failed. */
    void creationsFailed(K key, int count) {
        lower(key, count, 0);
    }

    /** Deletions that will never be observed because they failed. */
    void deletionsFailed(K key, int count) {
        lower(key, 0, count);
    }

    /** The informer showed a pod of the key created ({@code add}) or deleted. */
    void observed(K key, boolean add) {
        lower(key, add ? 1 : 0, add ? 0 : 1);
    }

    void forget(K key) {
        pending.remove(key);
    }

    private void lower(K key, int adds, int deletes) {
        Pending expected = pending.get(key);
        if (expected != null) {
            synchronized (expected) {
                expected.adds -= adds;
                expected.deletes -= deletes;
            }
        }
    }
}
