package io.kdra.framework;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.kdra.kube.KubernetesVersion;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Any cluster, reached through a kubeconfig. Specs that only use the API run; deploying the driver to a node needs
 * the proxy pods of the real-cluster path, which is not built yet, so specs that deploy a driver are skipped with
 * {@link #NODE_ACCESS_UNAVAILABLE}.
 */
public final class KubeconfigBackend implements ClusterBackend {

    /** The reason specs that deploy a driver are skipped on this backend. */
    public static final String NODE_ACCESS_UNAVAILABLE = "deploying the test driver to the nodes of a cluster reached "
            + "through a kubeconfig needs the proxy pods of the real-cluster path, which kdra does not have yet";

    private final KubernetesClient client;

    private KubeconfigBackend(KubernetesClient client) {
        this.client = client;
    }

    /** Connects with the kubeconfig file's current context. */
    public static KubeconfigBackend connect(Path kubeconfig) {
        String content;
        try {
            content = Files.readString(kubeconfig);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read kubeconfig " + kubeconfig, e);
        }
        return new KubeconfigBackend(new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(content)).build());
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
    public Optional<String> nodeAccessUnavailable() {
        return Optional.of(NODE_ACCESS_UNAVAILABLE);
    }

    @Override
    public NodeAccess node(String nodeName) {
        throw new IllegalStateException(NODE_ACCESS_UNAVAILABLE);
    }

    @Override
    public void close() {
        client.close();
    }
}
