package io.kdra.cluster;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.kdra.apiserver.auth.UserInfo;
import io.kdra.cluster.kubelet.KubeletConfig;
import io.kdra.cluster.kubelet.SimulatedKubelet;
import io.kdra.cluster.kubelet.server.KubeletServer;
import io.kdra.cluster.runtime.ContainerRuntime;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * One node of an {@link EmbeddedCluster}: its kubelet's directories, where a DRA driver puts its sockets and CDI
 * files, and control over the kubelet itself (stop, start, restart), as node-side specs need it. The node's container
 * runtime and its kubelet HTTP server outlive kubelet restarts, as containerd outlives a real kubelet's; a version
 * switch of the cluster replaces the kubelet with one of the other version over the same directories.
 */
public final class ClusterNode {

    private final String name;
    private final ContainerRuntime runtime;
    private final KubeletServer server;
    private final Function<UserInfo, KubernetesClient> clients;
    private volatile SimulatedKubelet kubelet;
    private KubernetesClient kubeletClient;

    /** A node without a kubelet yet: {@link #replaceKubelet} installs the first. */
    ClusterNode(String name, ContainerRuntime runtime, KubeletServer server,
            Function<UserInfo, KubernetesClient> clients) {
        this.name = name;
        this.runtime = runtime;
        this.server = server;
        this.clients = clients;
    }

    /**
     * Installs a new kubelet binary, as an upgrade or downgrade does: the previous kubelet, which must be stopped, is
     * closed with its API client; the new one is not started.
     */
    synchronized void replaceKubelet(SimulatedKubelet next, KubernetesClient nextClient) {
        SimulatedKubelet previous = kubelet;
        if (previous != null) {
            if (previous.isRunning()) {
                throw new IllegalStateException("stop the kubelet of node " + name + " before replacing it");
            }
            previous.close();
            kubeletClient.close();
        }
        kubelet = next;
        kubeletClient = nextClient;
    }

    ContainerRuntime runtime() {
        return runtime;
    }

    /** The current kubelet's settings: its version, gates, labels and directories. */
    public KubeletConfig kubeletConfig() {
        return kubelet.config();
    }

    public String name() {
        return name;
    }

    /** The kubelet's root directory (a real kubelet's {@code /var/lib/kubelet}). */
    public Path rootDirectory() {
        return kubelet.config().rootDirectory();
    }

    /** Where a driver creates its registration socket ({@code <root>/plugins_registry}); the kubelet watches it. */
    public Path pluginsRegistryDirectory() {
        return kubelet.pluginsRegistryDirectory();
    }

    /** Where a driver keeps its DRA socket, in {@code <root>/plugins/<driver name>/}. */
    public Path pluginsDirectory() {
        return kubelet.pluginsDirectory();
    }

    /** Where drivers write CDI spec files; the runtime resolves the containers' CDI devices here. */
    public Path cdiDirectory() {
        return kubelet.cdiDirectory();
    }

    /** The DRA manager's checkpoint ({@code dra_manager_state}). */
    public Path checkpointFile() {
        return kubelet.checkpointFile();
    }

    /** The port of the kubelet's HTTP server on 127.0.0.1 ({@code /metrics}, {@code /containerLogs}, {@code /exec}). */
    /** The node's {@code /sys/fs/cgroup}, below which its pods' cgroups are. */
    public Path cgroupsDirectory() {
        return runtime.cgroups().root();
    }

    /** Whether the node's pod and container cgroups are the kernel's ({@link CgroupMode}). */
    public boolean kernelCgroups() {
        return runtime.cgroups().placesProcesses();
    }

    public int kubeletPort() {
        return server.port();
    }

    /** The kubelet's metrics in the Prometheus text format, as {@code /metrics} serves them. */
    public String kubeletMetrics() {
        return kubelet.metrics();
    }

    /** The DRA plugins the kubelet has registered: driver name to its instances' endpoints; empty while stopped. */
    public Map<String, List<String>> registeredPlugins() {
        return kubelet.registeredPlugins();
    }

    public boolean isKubeletRunning() {
        return kubelet.isRunning();
    }

    /**
     * Stops the kubelet as a real one stops: it no longer watches plugins or pods and renews no Lease; its checkpoint
     * and the containers stay.
     */
    public void stopKubelet() {
        kubelet.stop();
    }

    /**
     * Starts a stopped kubelet: it reads its checkpoint, adopts the running containers, wipes the node's
     * ResourceSlices and registers the plugins whose sockets it finds. Returns when the Node is Ready.
     */
    public void startKubelet() {
        try {
            kubelet.start();
        } catch (IOException e) {
            throw new UncheckedIOException("kubelet of node " + name + " cannot start", e);
        }
    }

    public void restartKubelet() {
        stopKubelet();
        startKubelet();
    }

    /**
     * A client with the identity of a DRA driver's pod on this node: a service account token bound to the node, so
     * the ResourceSlice admission policy lets it write this node's slices only, as upstream's kubelet plugins.
     */
    public KubernetesClient driverClient(String namespace, String serviceAccount) {
        String user = "system:serviceaccount:" + namespace + ":" + serviceAccount;
        return clients.apply(new UserInfo(user, "", List.of("system:serviceaccounts",
                "system:serviceaccounts:" + namespace, "system:authenticated"),
                Map.of(UserInfo.NODE_NAME_EXTRA, List.of(name))));
    }

    void close() {
        try {
            if (kubelet != null) {
                kubelet.close();
            }
        } finally {
            try {
                server.close();
            } finally {
                runtime.close();
            }
        }
    }
}
