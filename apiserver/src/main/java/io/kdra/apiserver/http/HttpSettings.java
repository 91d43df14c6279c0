package io.kdra.apiserver.http;

import java.time.Duration;

/**
 * Tunables of the HTTP front end.
 *
 * @param maxBodyBytes the largest accepted request body; larger ones get 413
 * @param watchQueueCapacity how many events a watcher may fall behind before it is dropped
 * @param bookmarkIntervalMillis how often watches that allow bookmarks get one
 * @param defaultWatchTimeoutSeconds how long a watch without timeoutSeconds lasts
 * @param gitVersion the emulated Kubernetes version, e.g. {@code v1.34.0}
 * @param timeouts when idle connections and stalled request bodies are given up
 */
public record HttpSettings(long maxBodyBytes, int watchQueueCapacity, long bookmarkIntervalMillis,
        long defaultWatchTimeoutSeconds, String gitVersion, ConnectionTimeouts timeouts) {

    /**
     * @param idle how long a connection may stay open with no request in flight, including one whose request line
     *     and headers never complete (kube-apiserver: 90 s idle)
     * @param body how long a request's body may take to arrive once its headers have (kube-apiserver's request
     *     timeout: 60 s)
     */
    public record ConnectionTimeouts(Duration idle, Duration body) {

        public static final ConnectionTimeouts DEFAULTS = new ConnectionTimeouts(Duration.ofSeconds(90),
                Duration.ofSeconds(60));

        public ConnectionTimeouts {
            if (idle.isNegative() || idle.isZero() || body.isNegative() || body.isZero()) {
                throw new IllegalArgumentException("connection timeouts must be positive");
            }
        }
    }
}
