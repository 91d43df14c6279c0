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

    /** Why drivers cannot be deployed to this cluster's nodes yet, if they cannot; specs needing them are skipped. */
    Optional<String> nodeAccessUnavailable();

    /**
     * Prepares the instance's nodes for a driver in the test JVM. The caller closes the deployment after stopping the
     * driver's plugins, also when starting them failed.
     *
     * @throws IllegalStateException when {@link #nodeAccessUnavailable()} is present
     */
    DriverDeployment deploy(DriverInstance instance);

    @Override
    void close();
}
