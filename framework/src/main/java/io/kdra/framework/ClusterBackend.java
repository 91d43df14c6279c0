package io.kdra.framework;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.kdra.kube.KubernetesVersion;
import java.util.Optional;

/**
 * A cluster the specs run against: the embedded DRA control plane ({@link EmbeddedBackend}) or any cluster reached
 * through a kubeconfig ({@link KubeconfigBackend}). Everything a spec does goes through the admin client, except what
 * happens on a node, which goes through {@link NodeAccess}.
 */
public interface ClusterBackend extends AutoCloseable {

    /** {@code embedded} or {@code kubeconfig}. */
    String kind();

    /** A client with cluster-admin rights; owned by the backend. */
    KubernetesClient adminClient();

    /** The kubelets' version, for {@code [KubeletMinVersion:x]} checks. */
    KubernetesVersion kubeletVersion();

    /** The bounds of the spec's waits; upstream's unless the backend knows better. */
    default Timeouts timeouts() {
        return Timeouts.UPSTREAM;
    }

    /**
     * Whether a feature gate is on in this cluster (upstream's {@code e2eskipper.IsFeatureGateEnabled}), empty when the
     * backend cannot know.
     */
    default Optional<Boolean> featureGateEnabled(String gate) {
        return Optional.empty();
    }

    /** Why drivers cannot be deployed to this cluster's nodes yet, if they cannot; specs needing them are skipped. */
    Optional<String> nodeAccessUnavailable();

    /**
     * Prepares the instance's nodes for a driver in the test JVM. The caller closes the deployment after stopping the
     * driver's plugins, also when starting them failed.
     *
     * @throws IllegalStateException when {@link #nodeAccessUnavailable()} is present
     */
    DriverDeployment deploy(DriverInstance instance);

    /**
     * Why specs cannot run beside a node's kubelet here (upstream's {@code test/e2e_node} specs), if they cannot;
     * such specs are skipped with it.
     */
    default Optional<String> kubeletNodeUnavailable() {
        return Optional.of("node specs run beside the node's kubelet: on the embedded cluster, whose kubelets the "
                + "framework drives; driving a real node's kubelet (kdra on the node, its kubelet root, systemd) is "
                + "not built");
    }

    /**
     * The kubelet of one node, to drive from the spec.
     *
     * @throws IllegalStateException when {@link #kubeletNodeUnavailable()} is present
     */
    default KubeletNode kubeletNode(String nodeName) {
        throw new IllegalStateException(kubeletNodeUnavailable().orElse("no kubelet access"));
    }

    @Override
    void close();
}
