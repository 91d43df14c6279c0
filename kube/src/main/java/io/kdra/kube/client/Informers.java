package io.kdra.kube.client;

import io.fabric8.kubernetes.client.dsl.Informable;
import io.fabric8.kubernetes.client.informers.ExceptionHandler;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Informers for the cluster's components that keep listing and watching until they are stopped. fabric8's informers
 * give up for good when their first list fails; a component whose API server dropped one connection under load would
 * then never see another event. These retry every failure, with fabric8's backoff, except a response that cannot be
 * read, which is a bug to report, not a condition to wait out.
 */
public final class Informers {

    private static final Logger LOG = LoggerFactory.getLogger(Informers.class);

    private static final ExceptionHandler RETRY = (started, failure) -> {
        if (ExceptionHandler.isDeserializationException(failure)) {
            return false;
        }
        LOG.warn("{} failed, retrying: {}", started ? "watching" : "the first list", failure.toString());
        return true;
    };

    private Informers() {
    }

    /** An informer that is not started yet and retries as described above. */
    public static <T> SharedIndexInformer<T> retrying(Informable<T> source) {
        return source.runnableInformer(0).exceptionHandler(RETRY);
    }

    /** A started informer with the handler, retrying as described above; like {@link Informable#inform}. */
    public static <T> SharedIndexInformer<T> inform(Informable<T> source, ResourceEventHandler<? super T> handler) {
        SharedIndexInformer<T> informer = retrying(source);
        informer.addEventHandler(handler);
        informer.start();
        return informer;
    }

    /**
     * A handler for the common case where an add and an update mean the same (the object as it is now) and a deletion
     * something else.
     */
    public static <T> ResourceEventHandler<T> handler(Consumer<? super T> upsert, Consumer<? super T> delete) {
        return new ResourceEventHandler<>() {
            @Override
            public void onAdd(T object) {
                upsert.accept(object);
            }

            @Override
            public void onUpdate(T oldObject, T newObject) {
                upsert.accept(newObject);
            }

            @Override
            public void onDelete(T object, boolean finalStateUnknown) {
                delete.accept(object);
            }
        };
    }
}
