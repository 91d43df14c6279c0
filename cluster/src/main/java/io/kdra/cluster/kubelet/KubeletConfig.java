package io.kdra.cluster.kubelet;

import io.kdra.cluster.Timing;
import io.kdra.kube.FeatureGates;
import io.kdra.kube.KubernetesVersion;
import java.nio.file.Path;
import java.util.Map;

/**
 * One simulated kubelet's settings.
 *
 * @param nodeName the Node it registers, also its {@code kubernetes.io/hostname} label
 * @param rootDirectory its own directory (the real kubelet's {@code /var/lib/kubelet}); it holds
 *     {@code plugins_registry}, {@code plugins}, {@code cdi} and {@code dra_manager_state}. Keep it short: plugin
 *     sockets live below it and Unix socket paths must stay under 108 bytes
 * @param labels extra Node labels
 * @param capacity the Node's capacity (and allocatable), e.g. {@code cpu=4, memory=16Gi, pods=110}
 * @param kubeletVersion the emulated kubelet version; it picks the DRA gRPC service (1.31 v1alpha4; 1.32 and 1.33
 *     v1beta1, else v1alpha4; 1.34+ the plugin's first of v1 and v1beta1), the slice-wiping trigger and the health
 *     stream
 * @param featureGates the kubelet's gates ({@code ResourceHealthStatus}, {@code ResourceHealthStatusMessage},
 *     {@code DRAExtendedResource} matter here)
 * @param timing the delays (call timeout, wiping delay, reconcile period, retry back-offs, lease renewal)
 * @param serverPort the port of the node's kubelet HTTP server (logs, exec, metrics), published as the Node's
 *     {@code status.daemonEndpoints.kubeletEndpoint.Port}; 0 when the node has none
 */
public record KubeletConfig(String nodeName, Path rootDirectory, Map<String, String> labels,
        Map<String, String> capacity, KubernetesVersion kubeletVersion, FeatureGates featureGates, Timing timing,
        int serverPort) {

    /** The real kubelet's root directory, as pods and drivers name paths in it. */
    public static final String KUBELET_ROOT = "/var/lib/kubelet";

    /** The capacity of a node when none is given. */
    public static final Map<String, String> DEFAULT_CAPACITY = Map.of("cpu", "4", "memory", "16Gi", "pods", "110",
            "ephemeral-storage", "100Gi", "hugepages-2Mi", "1Gi");

    public KubeletConfig {
        if (nodeName == null || nodeName.isEmpty()) {
            throw new IllegalArgumentException("a kubelet needs a node name");
        }
        if (rootDirectory == null) {
            throw new IllegalArgumentException("kubelet of node " + nodeName + " needs a root directory");
        }
        if (kubeletVersion == null || featureGates == null || timing == null) {
            throw new IllegalArgumentException("kubelet of node " + nodeName
                    + " needs a kubelet version, feature gates and timing");
        }
        if (serverPort < 0 || serverPort > 65535) {
            throw new IllegalArgumentException("kubelet server port must be 0..65535, got " + serverPort);
        }
        rootDirectory = rootDirectory.toAbsolutePath();
        labels = Map.copyOf(labels);
        capacity = Map.copyOf(capacity);
    }

    /** A kubelet of the given version with that version's default gates, the fast timing and the default capacity. */
    public static KubeletConfig of(String nodeName, Path rootDirectory, KubernetesVersion kubeletVersion) {
        return new KubeletConfig(nodeName, rootDirectory, Map.of(), DEFAULT_CAPACITY, kubeletVersion,
                FeatureGates.defaults(kubeletVersion), Timing.FAST, 0);
    }

    public KubeletConfig withLabels(Map<String, String> value) {
        return new KubeletConfig(nodeName, rootDirectory, value, capacity, kubeletVersion, featureGates, timing,
                serverPort);
    }

    public KubeletConfig withFeatureGates(FeatureGates value) {
        return new KubeletConfig(nodeName, rootDirectory, labels, capacity, kubeletVersion, value, timing,
                serverPort);
    }

    public KubeletConfig withTiming(Timing value) {
        return new KubeletConfig(nodeName, rootDirectory, labels, capacity, kubeletVersion, featureGates, value,
                serverPort);
    }

    public KubeletConfig withServerPort(int value) {
        return new KubeletConfig(nodeName, rootDirectory, labels, capacity, kubeletVersion, featureGates, timing,
                value);
    }

    /** {@code <root>/plugins_registry}, where drivers put their registration sockets. */
    public Path pluginsRegistryDirectory() {
        return rootDirectory.resolve("plugins_registry");
    }

    /** {@code <root>/plugins}, where drivers keep their DRA sockets ({@code plugins/<driver>/dra.sock}). */
    public Path pluginsDirectory() {
        return rootDirectory.resolve("plugins");
    }

    /** {@code <root>/cdi}, the node's CDI spec directory (a real node's {@code /var/run/cdi}). */
    public Path cdiDirectory() {
        return rootDirectory.resolve("cdi");
    }

    /**
     * Where a path of the node's file system, as pods name it in hostPath volumes and drivers in the sockets they
     * advertise, lies on this machine: {@value #KUBELET_ROOT} is the root directory, {@code /var/run/cdi} and
     * {@code /etc/cdi} the CDI directory, anything else below {@code <root>/host}. A path already below the root
     * directory is itself, so a driver of the embedded backend may name its sockets either way.
     */
    public Path hostPath(String path) {
        return hostPath(rootDirectory, path);
    }

    /** {@link #hostPath(String)} of a kubelet with this root directory. */
    public static Path hostPath(Path root, String path) {
        Path rootDirectory = root.toAbsolutePath();
        Path absolute = Path.of(path).normalize();
        if (!absolute.isAbsolute() || absolute.startsWith(rootDirectory)) {
            return absolute;
        }
        Path cdiDirectory = rootDirectory.resolve("cdi");
        for (Map.Entry<Path, Path> mapped : Map.of(Path.of(KUBELET_ROOT), rootDirectory,
                Path.of("/var/run/cdi"), cdiDirectory, Path.of("/etc/cdi"), cdiDirectory).entrySet()) {
            if (absolute.startsWith(mapped.getKey())) {
                return mapped.getValue().resolve(mapped.getKey().relativize(absolute).toString());
            }
        }
        return rootDirectory.resolve("host").resolve(Path.of("/").relativize(absolute).toString());
    }

    /** {@code <root>/dra_manager_state}, the DRA manager's checkpoint. */
    public Path checkpointFile() {
        return rootDirectory.resolve("dra_manager_state");
    }
}
