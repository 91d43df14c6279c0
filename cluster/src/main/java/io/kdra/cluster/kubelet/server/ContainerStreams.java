package io.kdra.cluster.kubelet.server;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.util.List;

/**
 * What a node's container runtime offers the kubelet's streaming endpoints: a container's log and commands run in a
 * container's environment. kube-apiserver reaches these through the kubelet for {@code pods/log} and
 * {@code pods/exec}; the simulated kubelet's {@link KubeletServer} serves them the same way.
 */
public interface ContainerStreams {

    /**
     * Opens a container's log (stdout and stderr interleaved, as the kubelet serves it).
     *
     * @return a stream that ends at the current end of the log, or, with {@link LogOptions#follow()}, when the
     *     container has stopped and its output is drained; closing it stops following
     * @throws ContainerNotFoundException when the pod is not on this node or has no such container (the kubelet
     *     answers 404)
     * @throws ContainerUnavailableException when the container has not started yet, or, with
     *     {@link LogOptions#previous()}, has no terminated earlier instance (the kubelet answers 400)
     */
    InputStream logs(PodContainer target, LogOptions options)
            throws ContainerNotFoundException, ContainerUnavailableException, IOException;

    /**
     * Runs a command in a running container's environment (its env, CDI edits and working directory). The caller owns
     * the process: it writes stdin, reads stdout and stderr, and destroys it when the client goes away.
     *
     * @throws ContainerNotFoundException when the container is not running on this node
     * @throws IOException when the command cannot be started (for instance, not found on the PATH)
     */
    Process exec(PodContainer target, List<String> command) throws ContainerNotFoundException, IOException;

    /**
     * Where the kubelet connects to forward a port of a pod on this node ({@code pods/portforward}): the pod's own
     * listener when one of its commands runs in the runtime itself, otherwise the loopback address with that port
     * (the local runtimes' processes share the node's network).
     *
     * @throws ContainerNotFoundException when the pod has no container on this node
     */
    InetSocketAddress portAddress(String namespace, String pod, int port) throws ContainerNotFoundException;

    /** A pod's container on this node. */
    record PodContainer(String namespace, String pod, String container) {}

    /**
     * Raised when the pod or container is not on this node; the message is shown to the client, as the kubelet's
     * {@code container "c" not found in pod "p"}.
     */
    final class ContainerNotFoundException extends Exception {
        public ContainerNotFoundException(String message) {
            super(message);
        }
    }

    /**
     * Raised when the container is on this node but cannot serve the request now; the message is shown to the
     * client, as the kubelet's {@code previous terminated container "c" in pod "p" not found} or
     * {@code container "c" in pod "p" is waiting to start: ContainerCreating}.
     */
    final class ContainerUnavailableException extends Exception {
        public ContainerUnavailableException(String message) {
            super(message);
        }
    }
}
