package io.kdra.cluster.controller;

import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes core/v1 Events as client-go's event recorder does (name {@code <object>.<hex nanos>}, source and reporting
 * component, count 1), from a thread of its own so that recording never blocks an informer handler or a worker. A
 * lost event is logged, never retried.
 */
final class EventRecorder implements AutoCloseable {

    static final String NORMAL = "Normal";
    static final String WARNING = "Warning";

    private static final Logger LOG = LoggerFactory.getLogger(EventRecorder.class);

    private final KubernetesClient client;
    private final String component;
    private final ExecutorService writer;

    EventRecorder(KubernetesClient client, String component) {
        this.client = client;
        this.component = component;
        this.writer = Executors.newSingleThreadExecutor(runnable -> {
            Thread thread = new Thread(runnable, component + "-events");
            thread.setDaemon(true);
            return thread;
        });
    }

    /** Records an event about an object; cluster-scoped objects' events go to {@code default}, as upstream. */
    void event(ObjectReference involved, String type, String reason, String message) {
        Instant now = Instant.now();
        String namespace = involved.getNamespace() == null || involved.getNamespace().isEmpty() ? "default"
                : involved.getNamespace();
        String timestamp = DateTimeFormatter.ISO_INSTANT.format(now.truncatedTo(java.time.temporal.ChronoUnit.SECONDS));
        long nanos = now.getEpochSecond() * 1_000_000_000L + now.getNano();
        var event = new EventBuilder()
                .withNewMetadata().withName(involved.getName() + "." + Long.toHexString(nanos))
                .withNamespace(namespace).endMetadata()
                .withInvolvedObject(involved).withType(type).withReason(reason).withMessage(message)
                .withNewSource().withComponent(component).endSource()
                .withReportingComponent(component).withReportingInstance("")
                .withFirstTimestamp(timestamp).withLastTimestamp(timestamp).withCount(1)
                .build();
        try {
            writer.execute(() -> {
                try {
                    client.v1().events().inNamespace(namespace).resource(event).create();
                } catch (RuntimeException e) {
                    LOG.debug("{}: event {} {} for {}/{} not written: {}", component, reason, message, namespace,
                            involved.getName(), e.toString());
                }
            });
        } catch (RejectedExecutionException closed) {
            LOG.debug("{}: event {} dropped, the recorder is closed", component, reason);
        }
    }

    @Override
    public void close() {
        writer.shutdown();
        try {
            if (!writer.awaitTermination(5, TimeUnit.SECONDS)) {
                writer.shutdownNow();
            }
        } catch (InterruptedException e) {
            writer.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }
}
