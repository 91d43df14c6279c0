package io.kdra.cluster;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kdra.kube.client.UnreadWrites;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes core/v1 Events as client-go's event recorder does: named {@code <object>.<unix nanos in hex>}, source and
 * reporting component, count 1, events of cluster-scoped objects in {@code default}. {@link #record} writes in the
 * background so that a component never waits for its events (upstream's recorder is asynchronous too); a lost event
 * is logged, never retried.
 */
public final class EventRecorder implements AutoCloseable {

    public static final String NORMAL = "Normal";
    public static final String WARNING = "Warning";

    private static final Logger LOG = LoggerFactory.getLogger(EventRecorder.class);

    private final KubernetesClient client;
    private final String component;
    private final String host;
    private final Executor writer;
    private final ExecutorService ownWriter;
    private final AtomicLong lastNanos = new AtomicLong();

    private EventRecorder(KubernetesClient client, String component, String host, Executor writer,
            ExecutorService ownWriter) {
        this.client = client;
        this.component = component;
        this.host = host;
        this.writer = writer;
        this.ownWriter = ownWriter;
    }

    /** A recorder that writes on a thread of its own, which {@link #close()} stops. */
    public static EventRecorder ownThread(KubernetesClient client, String component) {
        ExecutorService writer = Executors.newSingleThreadExecutor(runnable -> {
            Thread thread = new Thread(runnable, component + "-events");
            thread.setDaemon(true);
            return thread;
        });
        return new EventRecorder(client, component, null, writer, writer);
    }

    /**
     * A recorder that writes on an executor it does not own.
     *
     * @param host the node the component runs on ({@code source.host} and {@code reportingInstance}, as the kubelet
     *     sets them), or null for a component of the control plane (empty {@code reportingInstance}, as
     *     kube-controller-manager's)
     */
    public static EventRecorder on(KubernetesClient client, String component, String host, Executor writer) {
        return new EventRecorder(client, component, host, writer, null);
    }

    /** Records an event about an object in the background. */
    public void record(ObjectReference involved, String type, String reason, String message) {
        Event event = event(involved, type, reason, null, message);
        try {
            writer.execute(() -> {
                try {
                    write(event);
                } catch (RuntimeException e) {
                    LOG.debug("{}: event {} for {}/{} not written: {}", component, reason,
                            event.getMetadata().getNamespace(), involved.getName(), e.toString());
                }
            });
        } catch (RejectedExecutionException closed) {
            LOG.debug("{}: event {} dropped, the recorder is closed", component, reason);
        }
    }

    /**
     * Writes an event now, for a caller that orders it after other writes on a thread of its own.
     *
     * @param action what was done (events.k8s.io's {@code action}), or null
     * @throws io.fabric8.kubernetes.client.KubernetesClientException when the API server refuses it
     */
    public void writeNow(ObjectReference involved, String type, String reason, String action, String message) {
        write(event(involved, type, reason, action, message));
    }

    private Event event(ObjectReference involved, String type, String reason, String action, String message) {
        Instant now = Instant.now();
        String namespace = involved.getNamespace() == null || involved.getNamespace().isEmpty() ? "default"
                : involved.getNamespace();
        String timestamp = now.truncatedTo(ChronoUnit.SECONDS).toString();
        return new EventBuilder()
                .withNewMetadata().withName(involved.getName() + "." + Long.toHexString(uniqueNanos(now)))
                .withNamespace(namespace).endMetadata()
                .withInvolvedObject(involved).withType(type).withReason(reason).withAction(action)
                .withMessage(message)
                .withNewSource().withComponent(component).withHost(host).endSource()
                .withReportingComponent(component).withReportingInstance(host == null ? "" : host)
                .withFirstTimestamp(timestamp).withLastTimestamp(timestamp).withCount(1)
                .build();
    }

    private void write(Event event) {
        UnreadWrites.create(client, event);
    }

    /** One clock tick apart at least, so that two events about one object in the same nanosecond keep apart. */
    private long uniqueNanos(Instant now) {
        long nanos = now.getEpochSecond() * 1_000_000_000L + now.getNano();
        return lastNanos.updateAndGet(last -> Math.max(last + 1, nanos));
    }

    /** Stops the recorder's own thread (when it has one) after the events queued so far, waiting up to 5 s. */
    @Override
    public void close() {
        if (ownWriter == null) {
            return;
        }
        ownWriter.shutdown();
        try {
            if (!ownWriter.awaitTermination(5, TimeUnit.SECONDS)) {
                ownWriter.shutdownNow();
            }
        } catch (InterruptedException e) {
            ownWriter.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }
}
