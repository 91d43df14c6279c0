package io.kdra.cluster.kubelet;

import io.grpc.MethodDescriptor;
import io.grpc.protobuf.ProtoUtils;
import io.kdra.kube.FeatureGates;
import io.kdra.kube.KubernetesVersion;
import io.kdra.kubelet.api.drahealth.v1.NodeWatchResourcesRequest;
import io.kdra.kubelet.api.drahealth.v1.NodeWatchResourcesResponse;
import java.util.List;
import java.util.Optional;

/**
 * The device-health services ({@code DRAResourceHealth/NodeWatchResources}), and which one a kubelet opens. The three
 * versions share their messages, so all are read as v1 messages under their own method names.
 */
enum HealthService {
    V1("v1.DRAResourceHealth"),
    V1BETA1("v1beta1.DRAResourceHealth"),
    V1ALPHA1("v1alpha1.DRAResourceHealth");

    final String serviceName;
    final MethodDescriptor<NodeWatchResourcesRequest, NodeWatchResourcesResponse> watch;

    HealthService(String serviceName) {
        this.serviceName = serviceName;
        this.watch = MethodDescriptor.<NodeWatchResourcesRequest, NodeWatchResourcesResponse>newBuilder()
                .setType(MethodDescriptor.MethodType.SERVER_STREAMING)
                .setFullMethodName(MethodDescriptor.generateFullMethodName(serviceName, "NodeWatchResources"))
                .setRequestMarshaller(ProtoUtils.marshaller(NodeWatchResourcesRequest.getDefaultInstance()))
                .setResponseMarshaller(ProtoUtils.marshaller(NodeWatchResourcesResponse.getDefaultInstance()))
                .build();
    }

    /**
     * The health stream a kubelet opens for a plugin: none without the {@code ResourceHealthStatus} gate or before
     * 1.34; v1alpha1 for every plugin on 1.34 and 1.35; from 1.36 only a service the plugin advertised, newest first,
     * where v1 needs a 1.37 kubelet (1.36 kubelets have no v1 client).
     */
    static Optional<HealthService> choose(KubernetesVersion version, FeatureGates gates, List<String> supported) {
        if (!gates.enabled(FeatureGates.RESOURCE_HEALTH_STATUS) || !version.atLeast(1, 34)) {
            return Optional.empty();
        }
        if (!version.atLeast(1, 36)) {
            return Optional.of(V1ALPHA1);
        }
        for (HealthService service : values()) {
            if (service == V1 && !version.atLeast(1, 37)) {
                continue;
            }
            if (supported.contains(service.serviceName)) {
                return Optional.of(service);
            }
        }
        return Optional.empty();
    }

    /** Whether an Unimplemented answer ends the retries (newest kubelets) rather than being retried. */
    static boolean stopsOnUnimplemented(KubernetesVersion version) {
        return version.atLeast(1, 36);
    }
}
