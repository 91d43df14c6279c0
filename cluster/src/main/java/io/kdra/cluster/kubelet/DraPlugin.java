package io.kdra.cluster.kubelet;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.kdra.kubelet.api.dra.v1.NodePrepareResourcesRequest;
import io.kdra.kubelet.api.dra.v1.NodePrepareResourcesResponse;
import io.kdra.kubelet.api.dra.v1.NodeUnprepareResourcesRequest;
import io.kdra.kubelet.api.dra.v1.NodeUnprepareResourcesResponse;
import io.kdra.plugin.transport.PollingCalls;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * One registered instance of a DRA driver's kubelet plugin: its endpoint, the service version the kubelet chose, and
 * the one gRPC connection the kubelet keeps to it.
 */
final class DraPlugin {

    final String driverName;
    final String endpoint;
    final DraService service;
    final ManagedChannel channel;
    private final Duration callTimeout;

    /** Guarded by the plugin manager's lock. */
    boolean connected;

    DraPlugin(String driverName, String endpoint, DraService service, ManagedChannel channel, Duration callTimeout) {
        this.driverName = driverName;
        this.endpoint = endpoint;
        this.service = service;
        this.channel = channel;
        this.callTimeout = callTimeout;
    }

    NodePrepareResourcesResponse prepare(NodePrepareResourcesRequest request) throws StatusRuntimeException {
        return PollingCalls.blockingUnaryCall(channel, service.prepare, options(), request);
    }

    NodeUnprepareResourcesResponse unprepare(NodeUnprepareResourcesRequest request) throws StatusRuntimeException {
        return PollingCalls.blockingUnaryCall(channel, service.unprepare, options(), request);
    }

    private CallOptions options() {
        return CallOptions.DEFAULT.withDeadlineAfter(callTimeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    @Override
    public String toString() {
        return driverName + " at " + endpoint + " (" + service.advertised + ")";
    }
}
