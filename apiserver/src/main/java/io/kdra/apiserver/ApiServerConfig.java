package io.kdra.apiserver;

import io.kdra.kube.FeatureGates;
import io.kdra.kube.KubernetesVersion;

/**
 * The API server's settings.
 *
 * @param port the TCP port on loopback; 0 picks a free one
 * @param tls serve https with a certificate generated at start
 * @param kubernetesVersion the emulated Kubernetes version {@code <major>.<minor>}, e.g. {@code 1.34}
 * @param historySize how many recent changes watches can resume from (older resourceVersions get 410 Gone)
 * @param watchQueueCapacity how many events a watcher may lag before it is dropped
 * @param maxBodyBytes the largest request body (kube-apiserver's 3 MiB)
 * @param bookmarkIntervalMillis how often a watch that allows bookmarks gets one
 * @param defaultWatchTimeoutSeconds the lifetime of a watch without timeoutSeconds
 * @param eventLoops Vert.x event-loop threads; the HTTP server runs one instance on each, so connections spread
 *     over them (by default one per core, at least 2)
 * @param featureGates the gates validation and the dropping of disabled fields follow; null for the defaults of
 *     {@code kubernetesVersion} (see {@link #featureGates()})
 */
public record ApiServerConfig(int port, boolean tls, String kubernetesVersion, int historySize, int watchQueueCapacity,
        long maxBodyBytes, long bookmarkIntervalMillis, long defaultWatchTimeoutSeconds, int eventLoops,
        FeatureGates featureGates) {

    public static final String LOOPBACK = "127.0.0.1";

    private static final String VERSION_SYNTAX = "\\d+\\.\\d+";

    public ApiServerConfig {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port must be between 0 and 65535, got " + port);
        }
        if (!kubernetesVersion.matches(VERSION_SYNTAX)) {
            throw new IllegalArgumentException(
                    "kubernetesVersion must look like <major>.<minor>, e.g. 1.34, got '" + kubernetesVersion + "'");
        }
        if (featureGates != null && !featureGates.version().toString().equals(kubernetesVersion)) {
            throw new IllegalArgumentException("the feature gates are those of Kubernetes " + featureGates.version()
                    + " but the server emulates " + kubernetesVersion);
        }
        if (historySize < 1 || watchQueueCapacity < 1 || maxBodyBytes < 1 || bookmarkIntervalMillis < 1
                || defaultWatchTimeoutSeconds < 1 || eventLoops < 1) {
            throw new IllegalArgumentException("sizes, intervals and thread counts must be positive");
        }
    }

    public static ApiServerConfig defaults() {
        return new ApiServerConfig(0, false, "1.34", 100_000, 10_000, 3 * 1024 * 1024, 10_000, 1800,
                Math.max(2, Runtime.getRuntime().availableProcessors()), null);
    }

    public ApiServerConfig withPort(int newPort) {
        return new ApiServerConfig(newPort, tls, kubernetesVersion, historySize, watchQueueCapacity, maxBodyBytes,
                bookmarkIntervalMillis, defaultWatchTimeoutSeconds, eventLoops, featureGates);
    }

    public ApiServerConfig withTls(boolean newTls) {
        return new ApiServerConfig(port, newTls, kubernetesVersion, historySize, watchQueueCapacity, maxBodyBytes,
                bookmarkIntervalMillis, defaultWatchTimeoutSeconds, eventLoops, featureGates);
    }

    /** Sets the emulated version; gates set before keep their settings, over the new version's defaults. */
    public ApiServerConfig withKubernetesVersion(String version) {
        FeatureGates gates = featureGates == null || !version.matches(VERSION_SYNTAX) ? null
                : FeatureGates.parse(KubernetesVersion.parse(version), featureGates.toString());
        return new ApiServerConfig(port, tls, version, historySize, watchQueueCapacity, maxBodyBytes,
                bookmarkIntervalMillis, defaultWatchTimeoutSeconds, eventLoops, gates);
    }

    /** Sets the feature gates, and with them the emulated version they are for. */
    public ApiServerConfig withFeatureGates(FeatureGates gates) {
        return new ApiServerConfig(port, tls, gates.version().toString(), historySize, watchQueueCapacity,
                maxBodyBytes, bookmarkIntervalMillis, defaultWatchTimeoutSeconds, eventLoops, gates);
    }

    /**
     * The feature gates: those set, or the defaults of {@link #kubernetesVersion()}.
     *
     * @throws IllegalArgumentException when kdra does not know the gates of that version
     */
    @Override
    public FeatureGates featureGates() {
        return featureGates != null ? featureGates : FeatureGates.defaults(KubernetesVersion.parse(kubernetesVersion));
    }

    public ApiServerConfig withWatchLimits(int newHistorySize, int newWatchQueueCapacity) {
        return new ApiServerConfig(port, tls, kubernetesVersion, newHistorySize, newWatchQueueCapacity, maxBodyBytes,
                bookmarkIntervalMillis, defaultWatchTimeoutSeconds, eventLoops, featureGates);
    }

    public ApiServerConfig withMaxBodyBytes(long bytes) {
        return new ApiServerConfig(port, tls, kubernetesVersion, historySize, watchQueueCapacity, bytes,
                bookmarkIntervalMillis, defaultWatchTimeoutSeconds, eventLoops, featureGates);
    }

    public ApiServerConfig withBookmarkIntervalMillis(long millis) {
        return new ApiServerConfig(port, tls, kubernetesVersion, historySize, watchQueueCapacity, maxBodyBytes, millis,
                defaultWatchTimeoutSeconds, eventLoops, featureGates);
    }

    public ApiServerConfig withEventLoops(int loops) {
        return new ApiServerConfig(port, tls, kubernetesVersion, historySize, watchQueueCapacity, maxBodyBytes,
                bookmarkIntervalMillis, defaultWatchTimeoutSeconds, loops, featureGates);
    }
}
