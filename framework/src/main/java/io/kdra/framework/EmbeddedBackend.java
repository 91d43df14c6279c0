package io.kdra.framework;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.kdra.cluster.ClusterNode;
import io.kdra.cluster.EmbeddedCluster;
import io.kdra.cluster.Timing;
import io.kdra.kube.KubernetesVersion;
import io.kdra.plugin.ListenerFactory;
import io.kdra.plugin.cdi.FileOperations;
import io.kdra.plugin.cdi.LocalFileOperations;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The default backend: kdra's embedded DRA control plane in the test JVM. A node's sockets are real Unix sockets in
 * its kubelet's directories, so a driver listens on them directly; CDI files go into the node's CDI directory; the
 * driver's identity is a service account bound to the node.
 */
public final class EmbeddedBackend implements ClusterBackend {

    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedBackend.class);

    private static final long PENDING_CHECK_SECONDS = 5;
    private static final Timeouts TIMEOUTS = Timeouts.UPSTREAM.withPending(Duration.ofSeconds(PENDING_CHECK_SECONDS));

    private final EmbeddedCluster cluster;

    private EmbeddedBackend(EmbeddedCluster cluster) {
        this.cluster = cluster;
    }

    /** Starts an embedded cluster that meets the requirements; returns when every node is Ready. */
    public static EmbeddedBackend start(ClusterRequirements requirements) {
        LOG.info("starting an embedded cluster for {}", requirements);
        return new EmbeddedBackend(EmbeddedCluster.builder()
                .nodes(requirements.nodes())
                .kubernetesVersion(requirements.kubernetesVersion().toString())
                .kubeletVersion(requirements.kubeletVersion().toString())
                .featureGates(requirements.featureGatesFlag())
                .timing(requirements.realSliceWipingDelay()
                        ? Timing.FAST.withSliceWipingDelay(Timing.REAL.sliceWipingDelay()) : Timing.FAST)
                .start());
    }

    /** The cluster itself, for specs that control kubelets (stop, restart) or look at node directories. */
    public EmbeddedCluster cluster() {
        return cluster;
    }

    @Override
    public String kind() {
        return "embedded";
    }

    @Override
    public KubernetesClient adminClient() {
        return cluster.adminClient();
    }

    /**
     * Upstream's, except that "stays Pending" checks watch for {@value #PENDING_CHECK_SECONDS} s instead of 20 s:
     * with the fast timing no component of the embedded cluster acts later than 2 s after a change.
     */
    @Override
    public Timeouts timeouts() {
        return TIMEOUTS;
    }

    @Override
    public KubernetesVersion kubeletVersion() {
        return cluster.config().kubeletVersion();
    }

    @Override
    public KubernetesVersion kubernetesVersion() {
        return cluster.config().kubernetesVersion();
    }

    @Override
    public Optional<String> versionSwitchUnavailable() {
        return Optional.empty();
    }

    /** {@link EmbeddedCluster#switchVersion}: every component restarts as that version, the containers keep running. */
    @Override
    public void switchVersion(KubernetesVersion version) {
        cluster.switchVersion(version.toString());
    }

    @Override
    public Optional<String> nodeAccessUnavailable() {
        return Optional.empty();
    }

    /** The nodes' directories are local: nothing is deployed. */
    @Override
    public DriverDeployment deploy(DriverInstance instance) {
        return new DriverDeployment() {
            @Override
            public NodeAccess node(String nodeName) {
                return EmbeddedBackend.this.node(nodeName);
            }

            @Override
            public void close() {}
        };
    }

    /** How the driver reaches one node: its directories, its CDI directory and its node-bound identity. */
    public NodeAccess node(String nodeName) {
        ClusterNode node = cluster.node(nodeName);
        FileOperations cdiFiles = new LocalFileOperations(node.cdiDirectory());
        return new NodeAccess() {
            @Override
            public String nodeName() {
                return nodeName;
            }

            @Override
            public Path pluginsRegistryDirectory() {
                return node.pluginsRegistryDirectory();
            }

            @Override
            public Path pluginsDirectory() {
                return node.pluginsDirectory();
            }

            @Override
            public Optional<ListenerFactory> listenerFactory() {
                return Optional.empty();
            }

            @Override
            public FileOperations cdiFiles() {
                return cdiFiles;
            }

            @Override
            public KubernetesClient driverClient(String namespace, String serviceAccount) {
                return node.driverClient(namespace, serviceAccount);
            }
        };
    }

    @Override
    public Optional<Boolean> featureGateEnabled(String gate) {
        return Optional.of(cluster.config().featureGates().enabled(gate));
    }

    @Override
    public Optional<String> kubeletNodeUnavailable() {
        return Optional.empty();
    }

    /** The node's simulated kubelet: stop, start and restart keep its checkpoint and the node's containers. */
    @Override
    public KubeletNode kubeletNode(String nodeName) {
        ClusterNode node = cluster.node(nodeName);
        NodeAccess access = node(nodeName);
        return new KubeletNode() {
            @Override
            public NodeAccess access() {
                return access;
            }

            @Override
            public boolean isKubeletRunning() {
                return node.isKubeletRunning();
            }

            @Override
            public void stopKubelet() {
                node.stopKubelet();
            }

            @Override
            public void startKubelet() {
                node.startKubelet();
            }

            @Override
            public String kubeletMetrics() {
                return node.kubeletMetrics();
            }

            @Override
            public String checkpoint() throws IOException {
                return Files.exists(node.checkpointFile()) ? Files.readString(node.checkpointFile()) : "";
            }

            @Override
            public Map<String, List<String>> registeredPlugins() {
                return node.registeredPlugins();
            }
        };
    }

    @Override
    public void close() {
        cluster.close();
    }
}
