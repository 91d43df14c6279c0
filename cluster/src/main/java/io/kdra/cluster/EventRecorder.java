package io.kdra.cluster;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.kdra.kube.client.UnreadWrites;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Writes core/v1 Events as client-go's event recorder does: named {@code <object>.<unix nanos in hex>}, source and
 * reporting component, events of cluster-scoped objects in {@code default}. An event the recorder wrote before (same
 * object, type, reason and message) is not written again: as client-go's correlator does, the earlier one gets its
 * {@code count} raised and its {@code lastTimestamp} moved by a strategic merge patch, so that a retried failure shows
 * as one line, {@code (x8 over 11s)} in {@code kubectl describe}, rather than as one event per retry (a missing
 * earlier event is created anew, with the count). {@link #record} writes in the background so that a component never
 * waits for its events (upstream's recorder is asynchronous too); a lost event is logged, never retried.
 */
public final class EventRecorder implements AutoCloseable {

    public static final String NORMAL = "Normal";
    public static final String WARNING = "Warning";

    private static final Logger LOG = LoggerFactory.getLogger(EventRecorder.class);
    /** client-go's maxLruCacheEntries. */
    private static final int SEEN_EVENTS = 4096;

    private final KubernetesClient client;
    private final String component;
    private final String host;
    private final Executor writer;
    private final ExecutorService ownWriter;
    private final AtomicLong lastNanos = new AtomicLong();
    /** The events written so far by what makes them alike, the least recently seen dropped first, as client-go's. */
    private final Map<String, Seen> seen = new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Seen> eldest) {
            return size() > SEEN_EVENTS;
        }
    };

    /** What a repeat of an event needs of the first one. */
    private record Seen(String name, String firstTimestamp, int count) {}

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
        String key = String.join("\u0000", namespace, String.valueOf(involved.getKind()),
                String.valueOf(involved.getName()), String.valueOf(involved.getUid()),
                String.valueOf(involved.getApiVersion()), String.valueOf(involved.getFieldPath()), type, reason,
                String.valueOf(action), message);
        synchronized (seen) {
            Seen earlier = seen.get(key);
            Event event = new EventBuilder()
                    .withNewMetadata().withName(earlier != null ? earlier.name()
                            : involved.getName() + "." + Long.toHexString(uniqueNanos(now)))
                    .withNamespace(namespace).endMetadata()
                    .withInvolvedObject(involved).withType(type).withReason(reason).withAction(action)
                    .withMessage(message)
                    .withNewSource().withComponent(component).withHost(host).endSource()
                    .withReportingComponent(component).withReportingInstance(host == null ? "" : host)
                    .withFirstTimestamp(earlier != null ? earlier.firstTimestamp() : timestamp)
                    .withLastTimestamp(timestamp).withCount(earlier != null ? earlier.count() + 1 : 1)
                    .build();
            seen.put(key, new Seen(event.getMetadata().getName(), event.getFirstTimestamp(), event.getCount()));
            return event;
        }
    }

    private void write(Event event) {
        if (event.getCount() == 1) {
            UnreadWrites.create(client, event);
            return;
        }
        ObjectNode patch = JsonNodeFactory.instance.objectNode();
        patch.put("count", event.getCount());
        patch.put("lastTimestamp", event.getLastTimestamp());
        patch.put("message", event.getMessage());
        try {
            UnreadWrites.patch(client, Event.class, event.getMetadata().getNamespace(), event.getMetadata().getName(),
                    null, PatchType.STRATEGIC_MERGE, patch.toString(), null);
        } catch (KubernetesClientException e) {
            if (e.getCode() != 404) {
                throw e;
            }
            UnreadWrites.create(client, event);
        }
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
