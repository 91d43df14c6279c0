package io.kdra.framework;

/**
 * What a backend set up for one driver instance on its nodes: how the driver in the test JVM reaches each node. On the
 * embedded cluster that is the node's own directories; on a cluster reached through a kubeconfig, a proxy pod per node
 * (upstream's {@code dra-test-driver} ReplicaSet).
 */
public interface DriverDeployment extends AutoCloseable {

    /**
     * @throws IllegalArgumentException for a node the driver was not deployed to
     */
    NodeAccess node(String nodeName);

    /** Removes what was deployed, once the driver's plugins have stopped; calling it again does nothing. */
    @Override
    void close();
}
