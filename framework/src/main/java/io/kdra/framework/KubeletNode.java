package io.kdra.framework;

import java.io.IOException;
import java.util.List;
import java.util.Map;

/**
 * One node's kubelet as upstream's node specs ({@code test/e2e_node}) drive it: the spec runs beside the kubelet,
 * serves its plugins on local Unix sockets in the kubelet's directories, stops, starts and restarts the kubelet, and
 * reads its metrics, its DRA checkpoint and which plugins it registered. On the embedded cluster this is a simulated
 * kubelet ({@link ClusterBackend#kubeletNode}).
 */
public interface KubeletNode {

    /** The node as a driver reaches it: its name, the kubelet's plugin directories and the CDI spec directory. */
    NodeAccess access();

    boolean isKubeletRunning();

    /**
     * Stops the kubelet as its process stops (upstream's {@code mustStopKubelet}): no pod sync, no plugin watching, no
     * Lease; its checkpoint and the running containers stay. Returns once it is down.
     */
    void stopKubelet();

    /**
     * Starts the stopped kubelet: it reads its checkpoint, wipes the node's ResourceSlices and registers the plugins
     * whose sockets it finds. Returns once the Node is Ready again.
     */
    void startKubelet();

    /** {@link #stopKubelet()} then {@link #startKubelet()} (upstream's {@code restartKubelet(ctx, true)}). */
    default void restartKubelet() {
        stopKubelet();
        startKubelet();
    }

    /** The kubelet's {@code /metrics} in the Prometheus text format; see {@link KubeletMetrics}. */
    String kubeletMetrics();

    /** The DRA manager's checkpoint ({@code <kubelet root>/dra_manager_state}) as the kubelet wrote it. */
    String checkpoint() throws IOException;

    /** The DRA plugins the kubelet registered: driver name to the endpoints of its instances; empty while stopped. */
    Map<String, List<String>> registeredPlugins();
}
