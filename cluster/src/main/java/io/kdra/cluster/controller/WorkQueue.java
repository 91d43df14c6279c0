package io.kdra.cluster.controller;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A controller's work queue, as client-go's rate-limited work queue behaves: a key waiting in the queue is there
 * once however often it is added; a key being processed is not handed to a second worker, and if it is added
 * meanwhile it is processed again afterwards; a failed key comes back after a per-key exponential back-off (5 ms
 * doubling up to 1000 s, upstream's default) that a success resets. Event handlers only add keys, so they never
 * block; the blocking API calls happen in the workers.
 *
 * @param <K> the key type (a record, so that equal keys merge)
 */
final class WorkQueue<K> implements AutoCloseable {

    /** What a worker does with a key. */
    @FunctionalInterface
    interface Handler<K> {
        /**
         * @return null or zero when the key is done; a positive delay to look at it again after that time
         * @throws Exception to retry the key after its back-off
         */
        Duration process(K key) throws Exception;
    }

    private static final Logger LOG = LoggerFactory.getLogger(WorkQueue.class);
    private static final long BASE_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(5);
    private static final long MAX_BACKOFF_NANOS = TimeUnit.SECONDS.toNanos(1000);

    private final String name;
    private final int workerCount;
    private final Handler<K> handler;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition available = lock.newCondition();
    private final LinkedHashSet<K> queue = new LinkedHashSet<>();
    private final Set<K> processing = new HashSet<>();
    private final Set<K> dirty = new HashSet<>();
    private final Map<K, Integer> failures = new HashMap<>();
    private final ScheduledExecutorService delays;
    private final List<Thread> workers = new ArrayList<>();
    private boolean shutDown;

    WorkQueue(String name, int workerCount, Handler<K> handler) {
        if (workerCount < 1) {
            throw new IllegalArgumentException("a work queue needs at least one worker");
        }
        this.name = name;
        this.workerCount = workerCount;
        this.handler = handler;
        this.delays = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, name + "-delays");
            thread.setDaemon(true);
            return thread;
        });
    }

    /** Starts the workers; keys added before are processed from now on. */
    void start() {
        lock.lock();
        try {
            if (!workers.isEmpty() || shutDown) {
                return;
            }
            for (int i = 0; i < workerCount; i++) {
                Thread thread = new Thread(this::work, name + "-worker-" + i);
                thread.setDaemon(true);
                workers.add(thread);
            }
        } finally {
            lock.unlock();
        }
        workers.forEach(Thread::start);
    }

    void add(K key) {
        lock.lock();
        try {
            if (shutDown) {
                return;
            }
            if (processing.contains(key)) {
                dirty.add(key);
                return;
            }
            if (queue.add(key)) {
                available.signal();
            }
        } finally {
            lock.unlock();
        }
    }

    void addAfter(K key, Duration delay) {
        if (delay == null || delay.isZero() || delay.isNegative()) {
            add(key);
            return;
        }
        try {
            delays.schedule(() -> add(key), delay.toNanos(), TimeUnit.NANOSECONDS);
        } catch (java.util.concurrent.RejectedExecutionException closed) {
            // the queue was shut down; the key no longer matters
        }
    }

    private void addRateLimited(K key) {
        int failed;
        lock.lock();
        try {
            failed = failures.merge(key, 1, Integer::sum);
        } finally {
            lock.unlock();
        }
        long delay = failed >= 40 ? MAX_BACKOFF_NANOS : Math.min(MAX_BACKOFF_NANOS, BASE_BACKOFF_NANOS << (failed - 1));
        addAfter(key, Duration.ofNanos(delay));
    }

    private void forget(K key) {
        lock.lock();
        try {
            failures.remove(key);
        } finally {
            lock.unlock();
        }
    }

    private void work() {
        while (true) {
            K key;
            lock.lock();
            try {
                while (queue.isEmpty() && !shutDown) {
                    available.awaitUninterruptibly();
                }
                if (shutDown) {
                    return;
                }
                var iterator = queue.iterator();
                key = iterator.next();
                iterator.remove();
                processing.add(key);
            } finally {
                lock.unlock();
            }
            try {
                Duration again = handler.process(key);
                forget(key);
                if (again != null && !again.isZero() && !again.isNegative()) {
                    addAfter(key, again);
                }
            } catch (Exception | LinkageError | AssertionError e) {
                if (isShutDown()) {
                    return;
                }
                LOG.debug("{}: {} failed, will retry: {}", name, key, e.toString());
                LOG.trace("{}: failure of {}", name, key, e);
                addRateLimited(key);
            } finally {
                done(key);
            }
        }
    }

    private void done(K key) {
        lock.lock();
        try {
            processing.remove(key);
            if (dirty.remove(key) && !shutDown && queue.add(key)) {
                available.signal();
            }
        } finally {
            lock.unlock();
        }
    }

    private boolean isShutDown() {
        lock.lock();
        try {
            return shutDown;
        } finally {
            lock.unlock();
        }
    }

    /** Stops taking keys; workers finish the key they hold and end. */
    @Override
    public void close() {
        lock.lock();
        try {
            shutDown = true;
            queue.clear();
            available.signalAll();
        } finally {
            lock.unlock();
        }
        delays.shutdownNow();
        for (Thread worker : workers) {
            if (worker != Thread.currentThread()) {
                try {
                    worker.join(TimeUnit.SECONDS.toMillis(10));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }
}
