package io.kdra.framework;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.kdra.testdriver.ClaimId;
import io.kdra.testdriver.ExamplePlugin;
import io.kdra.testdriver.GrpcCall;
import java.util.List;
import java.util.function.Supplier;

/**
 * The driver on one node (upstream's per-node {@code KubeletPlugin}): the plugin serving that node's kubelet, and the
 * node-bound client it publishes ResourceSlices and writes claim status with.
 *
 * @param nodeName the node
 * @param client the driver's node-bound identity (upstream's impersonated {@code ClientSet})
 * @param testDriver the test driver, or {@code null} when the spec runs its own plugin ({@link PluginFactory})
 * @param calls the gRPC calls that reached the plugin on this node
 * @param prepared the claims the plugin prepared on this node and did not unprepare since
 */
public record NodePlugin(String nodeName, KubernetesClient client, ExamplePlugin testDriver,
        Supplier<List<GrpcCall>> calls, Supplier<List<ClaimId>> prepared) {

    static NodePlugin testDriver(String nodeName, ExamplePlugin plugin, KubernetesClient client) {
        return new NodePlugin(nodeName, client, plugin, plugin::grpcCalls, plugin::preparedClaims);
    }

    /** The test driver on this node; its hooks block, fail and record calls. */
    public ExamplePlugin plugin() {
        if (testDriver == null) {
            throw new IllegalStateException("the driver on " + nodeName + " is the spec's own plugin, not the test "
                    + "driver: its hooks are not available");
        }
        return testDriver;
    }

    /** The claims prepared on this node and not unprepared since (upstream's {@code GetPreparedResources}). */
    public List<ClaimId> preparedClaims() {
        return prepared.get();
    }

    /** Every gRPC call that reached the driver on this node (upstream's {@code GetGRPCCalls}). */
    public List<GrpcCall> grpcCalls() {
        return calls.get();
    }
}
