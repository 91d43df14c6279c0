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

    /** The control plane's version, as its {@code /version} reports it. */
    KubernetesVersion kubernetesVersion();

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

    /**
     * Why this cluster's Kubernetes version cannot be switched in place, if it cannot; the upgrade/downgrade spec is
     * skipped with it.
     */
    default Optional<String> versionSwitchUnavailable() {
        return Optional.of("upgrading and downgrading in place needs the embedded cluster: a cluster reached through a "
                + "kubeconfig is upgraded by its own tooling (upstream builds kind clusters of two releases from "
                + "source)");
    }

    /**
     * Upgrades or downgrades control plane and kubelets to {@code version} over the same stored state, as upstream's
     * upgrade/downgrade spec replaces a kind cluster's binaries; returns when every node is Ready again.
     *
     * @throws IllegalStateException when {@link #versionSwitchUnavailable()} is present
     */
    default void switchVersion(KubernetesVersion version) {
        throw new IllegalStateException(versionSwitchUnavailable().orElse("no version switch"));
    }

    @Override
    void close();
}
