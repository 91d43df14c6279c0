package io.kdra.apiserver.http;

import io.kdra.apiserver.api.ApiException;
import io.kdra.apiserver.api.KindRegistry;
import io.kdra.apiserver.api.ResourceType;
import io.kdra.apiserver.json.Json;
import io.kdra.apiserver.registry.Meta;
import io.kdra.apiserver.selection.FieldSelector;
import io.kdra.apiserver.selection.LabelSelector;
import io.kdra.apiserver.storage.StoredObject;
import io.kdra.apiserver.storage.WatchEvent;
import io.kdra.apiserver.storage.WatchSubscriber;
import io.kdra.apiserver.storage.WatchSubscriber.IndexKey;
import io.vertx.core.Context;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * One watch connection: filters the store's events by namespace and selectors, converts them to the requested
 * version and writes them with back-pressure. Events wait in a bounded queue; a watcher that falls behind by more
 * than the bound is dropped (its stream ends and the client re-lists), so a slow watcher never blocks a writer.
 */
final class WatchStream implements WatchSubscriber {

    private static final Logger LOG = LoggerFactory.getLogger(WatchStream.class);
    static final String INITIAL_EVENTS_END = "k8s.io/initial-events-end";
    /** The field selectors' name of the namespace, so that namespace and field-selector watches share groups. */
    private static final String NAMESPACE_FIELD = "metadata.namespace";
    /** Events written at once when a watcher has several queued: one socket write for them, not one each. */
    private static final int MAX_BATCH = 256;

    /** What the client asked for. */
    record Request(ResourceType type, String version, String namespace, LabelSelector labels, FieldSelector fields,
            boolean sendInitialEventsBookmark, Tables.Format table) {}

    private final Context context;
    private final WatchSink sink;
    private final KindRegistry kinds;
    private final Tables tables;
    private final Request request;
    private final int capacity;
    private final IndexKey indexKey;
    private final ArrayDeque<WatchEvent> queue = new ArrayDeque<>();
    /** The initial events not yet filtered; written before anything in {@link #queue}. Guarded by the queue. */
    private final ArrayDeque<WatchEvent> replay = new ArrayDeque<>();
    private final boolean filtered;
    private boolean drainScheduled;
    private boolean overflowed;
    private boolean ended;
    private Runnable onEnd = () -> {};

    /** @param request its table, when set, makes every event's object a one-row Table */
    WatchStream(Context context, WatchSink sink, KindRegistry kinds, Tables tables, Request request, int capacity) {
        this.context = context;
        this.sink = sink;
        this.kinds = kinds;
        this.tables = tables;
        this.request = request;
        this.capacity = capacity;
        this.indexKey = indexKey(request);
        this.filtered = request.namespace() != null || request.labels() != LabelSelector.everything()
                || request.fields() != FieldSelector.everything();
    }

    /**
     * The store offers this watcher only the changes of objects with the value its field selector requires (such as a
     * kubelet's {@code spec.nodeName}), else of its namespace, else every change.
     */
    private static IndexKey indexKey(Request request) {
        FieldSelector.RequiredValue required = request.fields().firstRequiredValue(request.type());
        if (required != null) {
            return new IndexKey(required.field(), required.value(), required.reader());
        }
        if (request.namespace() != null) {
            return new IndexKey(NAMESPACE_FIELD, request.namespace(), WatchStream::namespaceOf);
        }
        return null;
    }

    private static String namespaceOf(ObjectNode object) {
        String namespace = Meta.namespace(object);
        return namespace == null ? "" : namespace;
    }

    @Override
    public IndexKey indexKey() {
        return indexKey;
    }

    void onEnd(Runnable onEnd) {
        this.onEnd = onEnd;
    }

    /**
     * Takes the initial events without looking at them: filtering a replayed state parses its JSON again, which for a
     * long history is seconds of work. The drain filters them a batch at a time on this watch's event loop.
     */
    @Override
    public void start(List<WatchEvent> initial, long resourceVersion) {
        synchronized (queue) {
            replay.addAll(initial);
            if (request.sendInitialEventsBookmark()) {
                ObjectNode marker = Json.object();
                marker.putObject("metadata").putObject("annotations").put(INITIAL_EVENTS_END, "true");
                replay.add(WatchEvent.bookmark(request.type().storageKey(), marker, resourceVersion));
            }
        }
        scheduleDrain();
    }

    @Override
    public boolean offer(WatchEvent event) {
        WatchEvent visible = visible(event);
        synchronized (queue) {
            if (ended || overflowed) {
                return false;
            }
            if (visible == null) {
                return true;
            }
            if (queue.size() >= capacity) {
                overflowed = true;
                queue.clear();
                LOG.warn("dropping a {} watcher that fell {} events behind; it must re-list",
                        request.type().groupResource(), capacity);
            } else {
                queue.add(visible);
            }
        }
        scheduleDrain();
        return !overflowed;
    }

    /** Ends the stream with an ERROR event carrying the status, as a watch that cannot start does. */
    void fail(ApiException error) {
        ObjectNode event = Json.object();
        event.put("type", "ERROR");
        event.set("object", error.status());
        context.runOnContext(v -> {
            sink.write(List.of(Json.bytes(event)));
            end();
        });
    }

    void end() {
        synchronized (queue) {
            if (ended) {
                return;
            }
            ended = true;
            queue.clear();
            replay.clear();
        }
        context.runOnContext(v -> sink.end());
        onEnd.run();
    }

    /** @return the event as this watcher sees it through its filters, or null when it does not see it */
    private WatchEvent visible(WatchEvent event) {
        if (event.type() == WatchEvent.Type.BOOKMARK) {
            return event;
        }
        if (!filtered) {
            // no object to read: every change is seen, a first state as ADDED
            return event.prior() == null ? event.withType(WatchEvent.Type.ADDED) : event;
        }
        boolean now = matches(event.object());
        if (event.type() == WatchEvent.Type.DELETED) {
            return now ? event : null;
        }
        boolean before = event.previous() != null && matches(event.previous());
        if (event.type() == WatchEvent.Type.ADDED || !before) {
            return now ? event.withType(WatchEvent.Type.ADDED) : null;
        }
        return now ? event : event.asLeavingFilter();
    }

    private boolean matches(ObjectNode object) {
        if (request.namespace() != null && !request.namespace().equals(Meta.namespace(object))) {
            return false;
        }
        return request.labels().matches(object) && request.fields().matches(request.type(), object);
    }

    private void scheduleDrain() {
        synchronized (queue) {
            if (drainScheduled) {
                return;
            }
            drainScheduled = true;
        }
        context.runOnContext(v -> drain());
    }

    private void drain() {
        while (true) {
            List<WatchEvent> batch;
            boolean replaying;
            synchronized (queue) {
                if (overflowed) {
                    drainScheduled = false;
                    end();
                    return;
                }
                if (ended || sink.writeQueueFull()) {
                    drainScheduled = false;
                    if (!ended) {
                        sink.onDrain(this::scheduleDrain);
                    }
                    return;
                }
                replaying = !replay.isEmpty();
                ArrayDeque<WatchEvent> source = replaying ? replay : queue;
                if (source.isEmpty()) {
                    drainScheduled = false;
                    return;
                }
                batch = new ArrayList<>(Math.min(source.size(), MAX_BATCH));
                while (batch.size() < MAX_BATCH && !source.isEmpty()) {
                    batch.add(source.poll());
                }
            }
            List<byte[]> lines = new ArrayList<>(batch.size());
            for (WatchEvent event : batch) {
                WatchEvent visible = replaying ? visible(event) : event;
                if (visible != null) {
                    lines.add(serialize(visible));
                }
            }
            if (!lines.isEmpty()) {
                sink.write(lines);
            }
            if (replaying) {
                // one batch of a replay per turn, the next one on a timer: the event loop reads its other connections
                // only once its task queue is empty, which a chain of runOnContext tasks never lets it be
                context.owner().setTimer(1, id -> drain());
                return;
            }
        }
    }

    private byte[] serialize(WatchEvent event) {
        if (event.type() != WatchEvent.Type.BOOKMARK && request.table() == null) {
            return StoredJson.event(event.type(), json(event.stored()));
        }
        ObjectNode line = Json.object();
        line.put("type", event.type().name());
        if (event.type() == WatchEvent.Type.BOOKMARK) {
            ObjectNode object = line.putObject("object");
            object.put("kind", request.type().kind());
            object.put("apiVersion", request.type().apiVersion(request.version()));
            ObjectNode metadata = object.putObject("metadata");
            metadata.put("resourceVersion", Long.toString(event.resourceVersion()));
            if (event.object() != null) {
                metadata.set("annotations", event.object().at("/metadata/annotations").deepCopy());
            }
        } else {
            line.set("object", tables.table(request.table(), request.type(), request.version(), event.object()));
        }
        return Json.bytes(line);
    }

    /** @return the object's JSON in the requested version, shared with every watcher and list of that version */
    private byte[] json(StoredObject stored) {
        ResourceType type = request.type();
        String version = request.version();
        return type.isStoredIn(version) ? stored.json()
                : stored.json(type.apiVersion(version), object -> kinds.fromStorage(type, object, version));
    }
}
