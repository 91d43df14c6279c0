package io.kdra.cluster.controller;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.kdra.kube.client.Informers;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One informer per kind (and namespace) for all the controllers of one client, as client-go's shared informer
 * factory: the controllers of a {@link KubeControllerManager} watch pods once, not once each. Controllers ask for
 * their informers and add their handlers and indexers in their constructors; {@link #start()} then starts every
 * informer not yet running and waits until all have listed.
 */
public final class SharedInformers implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(SharedInformers.class);
    private static final long SYNC_TIMEOUT_SECONDS = 60;

    private final KubernetesClient client;
    private final Map<String, SharedIndexInformer<?>> informers = new LinkedHashMap<>();
    private final Map<String, CompletableFuture<Void>> started = new HashMap<>();
    private boolean closed;

    public SharedInformers(KubernetesClient client) {
        this.client = client;
    }

    KubernetesClient client() {
        return client;
    }

    /** @return the informer on every object of the type in the cluster */
    @SuppressWarnings("unchecked")
    synchronized <T extends HasMetadata> SharedIndexInformer<T> informer(Class<T> type) {
        return (SharedIndexInformer<T>) informers.computeIfAbsent(type.getName(),
                key -> Informers.retrying(client.resources(type).inAnyNamespace()));
    }

    /** @return the informer on the objects of the type in one namespace */
    @SuppressWarnings("unchecked")
    synchronized <T extends HasMetadata> SharedIndexInformer<T> informer(Class<T> type, String namespace) {
        return (SharedIndexInformer<T>) informers.computeIfAbsent(type.getName() + "@" + namespace,
                key -> Informers.retrying(client.resources(type).inNamespace(namespace)));
    }

    /** @return the informer on a kind served in a version the typed model does not name (see DeviceTaintRules) */
    @SuppressWarnings("unchecked")
    synchronized SharedIndexInformer<GenericKubernetesResource> informer(ResourceDefinitionContext context) {
        return (SharedIndexInformer<GenericKubernetesResource>) informers.computeIfAbsent(
                context.getGroup() + "/" + context.getVersion() + "/" + context.getPlural(),
                key -> {
                    var resources = client.genericKubernetesResources(context);
                    return context.isNamespaceScoped() ? Informers.retrying(resources.inAnyNamespace())
                            : Informers.retrying(resources);
                });
    }

    /**
     * Starts the informers not running yet and returns when every informer has listed.
     *
     * @throws IllegalStateException when an informer cannot list within a minute
     */
    public void start() {
        List<CompletableFuture<Void>> syncs = new ArrayList<>();
        synchronized (this) {
            if (closed) {
                throw new IllegalStateException("the informers are closed");
            }
            informers.forEach((key, informer) -> syncs.add(started.computeIfAbsent(key,
                    k -> informer.start().toCompletableFuture())));
        }
        try {
            CompletableFuture.allOf(syncs.toArray(CompletableFuture[]::new))
                    .get(SYNC_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the informers listed", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("the informers did not list within " + SYNC_TIMEOUT_SECONDS + " s", e);
        }
    }

    @Override
    public void close() {
        List<SharedIndexInformer<?>> all;
        synchronized (this) {
            closed = true;
            all = new ArrayList<>(informers.values());
            informers.clear();
        }
        for (SharedIndexInformer<?> informer : all) {
            try {
                informer.close();
            } catch (RuntimeException e) {
                LOG.debug("closing an informer failed", e);
            }
        }
    }
}
