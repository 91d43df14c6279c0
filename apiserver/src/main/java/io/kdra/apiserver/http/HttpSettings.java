package io.kdra.apiserver.http;

/**
 * Tunables of the HTTP front end.
 *
 * @param maxBodyBytes the largest accepted request body; larger ones get 413
 * @param watchQueueCapacity how many events a watcher may fall behind before it is dropped
 * @param bookmarkIntervalMillis how often watches that allow bookmarks get one
 * @param defaultWatchTimeoutSeconds how long a watch without timeoutSeconds lasts
 * @param gitVersion the emulated Kubernetes version, e.g. {@code v1.34.0}
 */
public record HttpSettings(long maxBodyBytes, int watchQueueCapacity, long bookmarkIntervalMillis,
        long defaultWatchTimeoutSeconds, String gitVersion) {}
