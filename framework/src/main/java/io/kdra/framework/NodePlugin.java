package io.kdra.framework;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.kdra.testdriver.ClaimId;
import io.kdra.testdriver.ExamplePlugin;
import io.kdra.testdriver.GrpcCall;
import java.util.List;

/**
 * The driver on one node (upstream's per-node {@code KubeletPlugin}): the test driver serving that node's kubelet,
 * and the node-bound client it publishes ResourceSlices and writes claim status with.
 *
 * @param nodeName the node
 * @param plugin the test driver; its hooks block, fail and record calls
 * @param client the driver's node-bound identity (upstream's impersonated {@code ClientSet})
 */
public record NodePlugin(String nodeName, ExamplePlugin plugin, KubernetesClient client) {

    /** The claims prepared on this node and not unprepared since (upstream's {@code GetPreparedResources}). */
    public List<ClaimId> preparedClaims() {
        return plugin.preparedClaims();
    }

    /** Every gRPC call that reached the driver on this node (upstream's {@code GetGRPCCalls}). */
    public List<GrpcCall> grpcCalls() {
        return plugin.grpcCalls();
    }
}
