package io.kdra.framework;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.vertx5.Vertx5HttpClientFactory;
import io.kdra.framework.proxy.ProxyDeployment;
import io.kdra.kube.KubernetesVersion;
import io.kdra.kube.client.JdkWebSocketsHttpClientFactory;
import io.kdra.kube.client.KubeClients;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Any cluster, reached through a kubeconfig, as upstream's e2e.test runs: a driver is deployed per spec with a proxy
 * pod on each of its nodes ({@link ProxyDeployment}), and its gRPC servers run in the test JVM behind the nodes'
 * sockets.
 */
public final class KubeconfigBackend implements ClusterBackend {

    /** The kubelet's root directory on the nodes when none is given, as upstream's {@code --kubelet-root-dir}. */
    public static final Path DEFAULT_KUBELET_ROOT = Path.of("/var/lib/kubelet");

    private final KubernetesClient client;
    private final Path kubeletRootDirectory;

    private KubeconfigBackend(KubernetesClient client, Path kubeletRootDirectory) {
        this.client = client;
        this.kubeletRootDirectory = kubeletRootDirectory;
    }

    /** Connects with the kubeconfig file's current context, to nodes whose kubelets use {@code /var/lib/kubelet}. */
    public static KubeconfigBackend connect(Path kubeconfig) {
        return connect(kubeconfig, DEFAULT_KUBELET_ROOT);
    }

    /** Connects with the kubeconfig file's current context, to nodes whose kubelets use the given root directory. */
    public static KubeconfigBackend connect(Path kubeconfig, Path kubeletRootDirectory) {
        String content;
        try {
            content = Files.readString(kubeconfig);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read kubeconfig " + kubeconfig, e);
        }
        return new KubeconfigBackend(new KubernetesClientBuilder()
                .withConfig(KubeClients.httpWatches(Config.fromKubeconfig(content)))
                .withHttpClientFactory(new JdkWebSocketsHttpClientFactory(new Vertx5HttpClientFactory())).build(),
                kubeletRootDirectory);
    }

    @Override
    public String kind() {
        return "kubeconfig";
    }

    @Override
    public KubernetesClient adminClient() {
        return client;
    }

    @Override
    public KubernetesVersion kubeletVersion() {
        List<Node> nodes = client.nodes().list().getItems();
        return nodes.stream()
                .map(node -> node.getStatus().getNodeInfo().getKubeletVersion().replaceFirst("^v", ""))
                .map(version -> version.replaceFirst("^(\\d+\\.\\d+).*", "$1"))
                .map(KubernetesVersion::parse)
                .min(KubernetesVersion::compareTo)
                .orElseThrow(() -> new IllegalStateException("the cluster has no nodes"));
    }

    @Override
    public KubernetesVersion kubernetesVersion() {
        return KubernetesVersion.parse(client.getKubernetesVersion().getGitVersion()
                .replaceFirst("^v?(\\d+\\.\\d+).*", "$1"));
    }

    @Override
    public Optional<String> nodeAccessUnavailable() {
        return Optional.empty();
    }

    @Override
    public DriverDeployment deploy(DriverInstance instance) {
        return ProxyDeployment.create(client, instance, kubeletRootDirectory);
    }

    @Override
    public void close() {
        client.close();
    }
}
