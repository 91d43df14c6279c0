package io.kdra.apiserver.http;

import io.kdra.apiserver.api.ApiException;
import io.kdra.apiserver.api.KindRegistry;
import io.kdra.apiserver.selection.FieldSelector;
import io.kdra.apiserver.selection.LabelSelector;
import io.kdra.apiserver.storage.Store;
import io.vertx.core.Context;
import io.vertx.core.Vertx;

/**
 * Starts watches: from a resourceVersion (history replay, 410 Gone as an ERROR event when compacted) or from the
 * current state (synthetic ADDED events), with bookmarks and a timeout that ends the stream.
 */
final class WatchEndpoint {

    private final Vertx vertx;
    private final Store store;
    private final KindRegistry kinds;
    private final Tables tables;
    private final HttpSettings settings;

    WatchEndpoint(Vertx vertx, Store store, KindRegistry kinds, Tables tables, HttpSettings settings) {
        this.vertx = vertx;
        this.store = store;
        this.kinds = kinds;
        this.tables = tables;
        this.settings = settings;
    }

    /** A watch whose parameters were read, not yet started. */
    record Watch(WatchStream.Request request, Long from, long timeoutSeconds, boolean bookmarks) {}

    /**
     * Reads the watch's parameters before anything is written, so that a bad one gets a 400 Status as on a list.
     *
     * @throws ApiException when a parameter is invalid
     */
    Watch prepare(Call call) {
        LabelSelector labels = LabelSelector.parse(call.param("labelSelector"));
        FieldSelector fields = FieldSelector.parse(call.type(), call.param("fieldSelector"));
        Long from = call.resourceVersionParam();
        boolean sendInitialEvents = call.flag("sendInitialEvents");
        if (sendInitialEvents) {
            from = null;
        }
        Long timeout = call.longParam("timeoutSeconds");
        long timeoutSeconds = timeout == null || timeout <= 0 ? settings.defaultWatchTimeoutSeconds() : timeout;
        WatchStream.Request request = new WatchStream.Request(call.type(), call.info().version(), call.namespace(),
                labels, fields, sendInitialEvents, Tables.requested(call));
        return new Watch(request, from, timeoutSeconds, call.flag("allowWatchBookmarks"));
    }

    void start(Watch watch, WatchSink sink) {
        Context context = vertx.getOrCreateContext();
        WatchStream stream = new WatchStream(context, sink, kinds, tables, watch.request(),
                settings.watchQueueCapacity());
        String storageKey = watch.request().type().storageKey();
        long timer = vertx.setTimer(watch.timeoutSeconds() * 1000, id -> stream.end());
        long bookmarks = watch.bookmarks()
                ? vertx.setPeriodic(settings.bookmarkIntervalMillis(), id -> store.bookmark(storageKey, stream))
                : -1;
        Runnable cleanup = () -> {
            store.unwatch(storageKey, stream);
            vertx.cancelTimer(timer);
            if (bookmarks >= 0) {
                vertx.cancelTimer(bookmarks);
            }
        };
        stream.onEnd(cleanup);
        sink.onClose(stream::end);
        try {
            store.watch(storageKey, watch.from(), stream);
        } catch (ApiException e) {
            stream.fail(e);
        }
    }
}
