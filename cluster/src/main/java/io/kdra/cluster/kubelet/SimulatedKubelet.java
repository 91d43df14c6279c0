package io.kdra.cluster.kubelet;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.kdra.cluster.runtime.ContainerRuntime;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One node's kubelet, as far as DRA and the pod lifecycle go: it registers its Node and renews its Lease, watches its
 * {@code plugins_registry} for DRA plugins and registers them over gRPC on their Unix sockets, wipes the node's
 * ResourceSlices at start and a lost driver's slices after the wiping delay, prepares and unprepares pods' claims as
 * the kubelet's DRA manager does (checkpointed in {@code dra_manager_state}), runs the pods' containers through a
 * {@link ContainerRuntime}, and writes pod status, events and device health. It is an ordinary API client with the
 * node's identity; everything it shares with other kubelets comes from the {@link KubeletHost}.
 *
 * <p>{@link #stop()} and a later {@link #start()} are a kubelet restart: the checkpoint and the running containers
 * stay, the restarted kubelet reads the one, adopts the others and wipes the node's slices again.
 */
public final class SimulatedKubelet implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(SimulatedKubelet.class);

    private final KubeletConfig config;
    private final KubernetesClient client;
    private final ContainerRuntime runtime;
    private final KubeletHost host;
    private Session session;
    private DraManager lastDra;
    private boolean closed;

    /** The parts that live from one start to the next stop. */
    private record Session(NodeAgent node, DraPluginManager plugins, PluginWatcher watcher, PodWorkers pods) {}

    /**
     * @param client an API client with the node's identity ({@code system:node:<node>})
     * @param runtime the node's container runtime; the caller owns it (it outlives kubelet restarts)
     * @param host what this kubelet shares with the cluster's other kubelets
     */
    public SimulatedKubelet(KubeletConfig config, KubernetesClient client, ContainerRuntime runtime,
            KubeletHost host) {
        this.config = config;
        this.client = client;
        this.runtime = runtime;
        this.host = host;
    }

    /**
     * Starts (or restarts) the kubelet: registers the Node and posts it Ready, wipes the node's ResourceSlices, reads
     * the checkpoint, watches the plugin registry and the node's pods. Returns once the Node is Ready.
     *
     * @throws IOException when the node's directories or its checkpoint cannot be used
     */
    public synchronized void start() throws IOException {
        if (closed) {
            throw new IllegalStateException("kubelet of node " + config.nodeName() + " is closed");
        }
        if (session != null) {
            return;
        }
        Files.createDirectories(config.pluginsRegistryDirectory());
        Files.createDirectories(config.pluginsDirectory());
        Files.createDirectories(config.cdiDirectory());
        PodWorkers[] pods = new PodWorkers[1];
        DraManager dra = new DraManager(config, client, uids -> {
            if (pods[0] != null) {
                pods[0].healthChanged(uids);
            }
        });
        dra.load();
        DraPluginManager plugins = new DraPluginManager(config, host,
                new SliceWiper(client, config.nodeName(), host.executor()), dra);
        dra.setPlugins(plugins);
        NodeAgent node = new NodeAgent(config, client, host);
        PluginWatcher watcher = new PluginWatcher(config, host, plugins);
        pods[0] = new PodWorkers(config, client, host, runtime, dra);
        node.start();
        plugins.start();
        watcher.start();
        pods[0].start();
        session = new Session(node, plugins, watcher, pods[0]);
        lastDra = dra;
        LOG.info("node {}: kubelet {} started", config.nodeName(), config.kubeletVersion());
    }

    /**
     * Stops the kubelet as a kubelet process stops: no more watching, serving or lease renewals, plugin connections
     * closed; the checkpoint and the containers stay.
     */
    public synchronized void stop() {
        if (session == null) {
            return;
        }
        session.pods().stop();
        session.watcher().stop();
        session.plugins().stop();
        session.node().stop();
        session = null;
        LOG.info("node {}: kubelet stopped", config.nodeName());
    }

    public synchronized boolean isRunning() {
        return session != null;
    }

    /** Stops the kubelet for good. The runtime, and with it the containers, belong to the caller. */
    @Override
    public synchronized void close() {
        stop();
        closed = true;
    }

    public KubeletConfig config() {
        return config;
    }

    public String nodeName() {
        return config.nodeName();
    }

    /** Where drivers put their registration sockets. */
    public Path pluginsRegistryDirectory() {
        return config.pluginsRegistryDirectory();
    }

    /** Where drivers keep their DRA sockets. */
    public Path pluginsDirectory() {
        return config.pluginsDirectory();
    }

    /** The node's CDI spec directory; the runtime resolves CDI device IDs there. */
    public Path cdiDirectory() {
        return config.cdiDirectory();
    }

    /** The DRA manager's checkpoint file. */
    public Path checkpointFile() {
        return config.checkpointFile();
    }

    /** Whether the wiping of a lost driver's slices is waiting for its delay (for tests). */
    synchronized boolean sliceWipePending(String driverName) {
        return session != null && session.plugins().wipePending(driverName);
    }

    /**
     * The DRA plugins this kubelet has registered: driver name to the endpoints of its instances, in registration
     * order; empty while the kubelet is stopped.
     */
    public synchronized Map<String, List<String>> registeredPlugins() {
        return session == null ? Map.of() : session.plugins().registered();
    }

    /** The kubelet's metrics in the Prometheus text format, for the node's {@code /metrics} endpoint. */
    public synchronized String metrics() {
        return lastDra == null ? "" : lastDra.metrics();
    }
}
