package io.kdra.apiserver.http;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpConnection;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Closes connections that hold a socket without using it: one with no request in flight for longer than the idle
 * timeout (a keep-alive left open, or one whose next request never completes its headers), as Go's http.Server
 * IdleTimeout and ReadHeaderTimeout do for kube-apiserver. A connection serving a request (a watch, an exec stream)
 * is never idle however long it lasts; a request whose body stalls is ended by the body timeout of
 * {@link ApiRequestHandler}. Not covered: a connection whose first request never completes its headers, which Vert.x
 * only makes a connection of once they do (it first tells HTTP/1 from cleartext HTTP/2).
 */
final class ConnectionGuard {

    private static final Logger LOG = LoggerFactory.getLogger(ConnectionGuard.class);

    private final Vertx vertx;
    private final long idleNanos;
    private final Map<HttpConnection, Activity> connections = new ConcurrentHashMap<>();
    private long sweeper = -1;

    /** In-flight requests and when the last one ended (or the connection opened); guarded by itself. */
    private static final class Activity {
        int inFlight;
        long lastActive = System.nanoTime();
    }

    ConnectionGuard(Vertx vertx, Duration idleTimeout) {
        this.vertx = vertx;
        this.idleNanos = idleTimeout.toNanos();
    }

    void opened(HttpConnection connection) {
        connections.put(connection, new Activity());
        connection.closeHandler(v -> connections.remove(connection));
    }

    /** Starts the periodic check; called outside any event loop, so that the timer belongs to none of them. */
    void start() {
        synchronized (this) {
            if (sweeper < 0) {
                long period = Math.max(10, Math.min(1000, idleNanos / 4_000_000));
                sweeper = vertx.setPeriodic(period, id -> sweep());
            }
        }
    }

    void requestStarted(HttpConnection connection) {
        Activity activity = connections.get(connection);
        if (activity != null) {
            synchronized (activity) {
                activity.inFlight++;
            }
        }
    }

    void requestEnded(HttpConnection connection) {
        Activity activity = connections.get(connection);
        if (activity != null) {
            synchronized (activity) {
                activity.inFlight--;
                activity.lastActive = System.nanoTime();
            }
        }
    }

    private void sweep() {
        long now = System.nanoTime();
        connections.forEach((connection, activity) -> {
            boolean idle;
            synchronized (activity) {
                idle = activity.inFlight <= 0 && now - activity.lastActive > idleNanos;
            }
            if (idle) {
                LOG.debug("closing connection from {}: idle for longer than {} ms", connection.remoteAddress(),
                        idleNanos / 1_000_000);
                connections.remove(connection);
                connection.close();
            }
        });
    }

    void stop() {
        synchronized (this) {
            if (sweeper >= 0) {
                vertx.cancelTimer(sweeper);
                sweeper = -1;
            }
        }
    }
}
