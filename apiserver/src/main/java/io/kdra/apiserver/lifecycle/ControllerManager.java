package io.kdra.apiserver.lifecycle;

import io.kdra.apiserver.api.ResourceType;
import io.kdra.apiserver.registry.Registry;
import io.kdra.apiserver.storage.Store;
import io.kdra.apiserver.storage.WatchEvent;
import io.kdra.kube.FeatureGates;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The controllers that live inside the API server here (kube-controller-manager's garbage collector, namespace
 * and resourcequota controllers): one thread feeds them every committed change in commit order.
 */
public final class ControllerManager implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ControllerManager.class);

    private final LinkedBlockingQueue<WatchEvent> events = new LinkedBlockingQueue<>();
    private final Consumer<WatchEvent> listener = events::add;
    private final Store store;
    private final List<Controller> controllers;
    private final Thread worker;
    private volatile boolean running = true;

    /** @param gates the server's feature gates (DRAExtendedResource changes what quotas count) */
    public ControllerManager(Registry registry, FeatureGates gates) {
        List<ResourceType> types = registry.kinds().types();
        Map<String, ResourceType> byKey = new HashMap<>();
        // a stored object is handled as its owner's, once, whichever resources serve it
        types.stream().filter(ResourceType::ownsStorage).forEach(t -> byKey.put(t.storageKey(), t));
        SystemWriter writer = new SystemWriter(registry);
        this.controllers = List.of(new GarbageCollector(writer, byKey::get), new NamespaceController(writer, types),
                new QuotaStatusController(writer, registry.store(), types, gates));
        this.store = registry.store();
        store.addListener(listener);
        this.worker = new Thread(this::run, "kdra-controllers");
        worker.setDaemon(true);
    }

    public void start() {
        worker.start();
    }

    private void run() {
        while (running) {
            try {
                WatchEvent event = events.take();
                for (Controller controller : controllers) {
                    try {
                        controller.handle(event);
                    } catch (RuntimeException e) {
                        LOG.error("controller {} failed on {} {}", controller.getClass().getSimpleName(),
                                event.type(), event.storageKey(), e);
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    @Override
    public void close() {
        // a restarted API server's controllers take over the store
        store.removeListener(listener);
        running = false;
        worker.interrupt();
    }
}
