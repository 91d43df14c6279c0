package io.kdra.framework;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.kdra.plugin.ListenerFactory;
import io.kdra.plugin.cdi.FileOperations;
import java.nio.file.Path;
import java.util.Optional;

/**
 * How the framework reaches one node's kubelet: where the kubelet looks for plugin sockets, how the driver in the test
 * JVM serves a socket path there, where CDI spec files go, and the driver's node-bound identity.
 */
public interface NodeAccess {

    String nodeName();

    /** The kubelet's plugin registry directory (a real node's {@code /var/lib/kubelet/plugins_registry}). */
    Path pluginsRegistryDirectory();

    /** The parent of each driver's data directory (a real node's {@code /var/lib/kubelet/plugins}). */
    Path pluginsDirectory();

    /**
     * Serves a socket path of this node from the test JVM. Empty when the path is local, so the plugin listens on the
     * Unix socket itself (the embedded cluster); a remote node proxies its connections into the JVM.
     */
    Optional<ListenerFactory> listenerFactory();

    /** Writes and removes CDI spec files in the directory the node's container runtime reads. */
    FileOperations cdiFiles();

    /**
     * A client with the identity of a driver pod on this node (a service account bound to the node), through which
     * the driver publishes its node-local ResourceSlices, as upstream's impersonated plugin client.
     */
    KubernetesClient driverClient(String namespace, String serviceAccount);
}
