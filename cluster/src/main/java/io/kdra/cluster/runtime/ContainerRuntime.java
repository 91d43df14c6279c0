package io.kdra.cluster.runtime;

import io.kdra.cluster.kubelet.server.ContainerStreams;
import java.io.IOException;
import java.util.List;

/**
 * A node's container runtime, as the simulated kubelet drives it (the CRI's part that matters here): start a
 * container with its environment and CDI devices, stop it, and serve its log and exec. Pods, restarts, init-container
 * order and status belong to the kubelet; running one container instance belongs here.
 */
public interface ContainerRuntime extends ContainerStreams, AutoCloseable {

    /**
     * Starts one instance of a container. The runtime resolves {@link ContainerConfig#cdiDevices()} in the node's
     * CDI directory and applies their edits before the container starts.
     *
     * @throws ContainerStartException when the container cannot start (an unresolvable CDI device, a command that is
     *     not found); the message is what the kubelet puts in the Warning event and the container's waiting reason
     */
    RunningContainer start(ContainerConfig config) throws ContainerStartException;

    /**
     * The instances started by this runtime that have not ended, so that a kubelet restarted over the same runtime
     * adopts its pods' containers instead of starting them again, as a real kubelet finds them through the CRI.
     */
    List<RunningContainer> running();

    /**
     * Applies new resource values to a running container's cgroup, as the CRI's {@code UpdateContainerResources} does
     * for an in-place resize.
     *
     * @throws ContainerNotFoundException when the container has no running instance
     */
    void updateResources(PodContainer target, LinuxResources resources)
            throws ContainerNotFoundException, IOException;

    /** The node's cgroups, where the kubelet puts its pods' and this runtime its containers'. */
    Cgroups cgroups();

    /**
     * Forgets a pod the kubelet has removed, as the CRI's RemovePodSandbox: kills what still runs of it and drops its
     * instances, logs and files. Returns at once; a pod the runtime does not know is no error.
     */
    void removePod(String podUid);

    /** Stops every container still running and frees what the runtime holds. */
    @Override
    void close();

    /** A container that could not be started, with a message for the pod's events. */
    final class ContainerStartException extends Exception {
        public ContainerStartException(String message) {
            super(message);
        }

        public ContainerStartException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
