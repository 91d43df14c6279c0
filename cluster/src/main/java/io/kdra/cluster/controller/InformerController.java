package io.kdra.cluster.controller;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;

/**
 * What every controller here is made of: informers, either its own or a {@link KubeControllerManager}'s shared ones
 * (which their owner starts and closes), and a {@link WorkQueue} whose workers call {@link #sync}. Subclasses add
 * their informers' handlers in their constructors; handlers only add keys to {@link #queue}.
 *
 * @param <C> the controller's own type, so that {@link #start()} returns it
 * @param <K> the work queue's key type
 */
abstract class InformerController<C extends InformerController<C, K>, K> implements AutoCloseable {

    final KubernetesClient client;
    final SharedInformers informers;
    final WorkQueue<K> queue;
    private final boolean ownsInformers;

    /**
     * @param ownsInformers whether this controller starts and closes the informers (false when they are shared)
     * @param name the work queue's name, which names its threads
     */
    InformerController(SharedInformers informers, boolean ownsInformers, String name, int workers) {
        this.client = informers.client();
        this.informers = informers;
        this.ownsInformers = ownsInformers;
        this.queue = new WorkQueue<>(name, workers, this::sync);
    }

    /** Processes one key; see {@link WorkQueue.Handler#process}. */
    abstract Duration sync(K key) throws Exception;

    /** Starts the informers (when it owns them) and the workers; returns when the informers have listed. */
    @SuppressWarnings("unchecked")
    public C start() {
        informers.start();
        queue.start();
        return (C) this;
    }

    /** Stops the workers, then the informers when it owns them. */
    @Override
    public void close() {
        queue.close();
        if (ownsInformers) {
            informers.close();
        }
    }
}
