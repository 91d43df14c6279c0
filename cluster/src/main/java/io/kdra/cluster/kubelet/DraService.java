package io.kdra.cluster.kubelet;

import io.grpc.MethodDescriptor;
import io.grpc.protobuf.ProtoUtils;
import io.kdra.kube.KubernetesVersion;
import io.kdra.kubelet.api.dra.v1.NodePrepareResourcesRequest;
import io.kdra.kubelet.api.dra.v1.NodePrepareResourcesResponse;
import io.kdra.kubelet.api.dra.v1.NodeUnprepareResourcesRequest;
import io.kdra.kubelet.api.dra.v1.NodeUnprepareResourcesResponse;
import java.util.ArrayList;
import java.util.List;

/**
 * The DRA gRPC services a kubelet can call, and which one a kubelet of a given version picks from a plugin's
 * {@code supported_versions}. v1beta1 and v1alpha4 have the field numbers of v1 (v1 only adds {@code share_id}), so
 * every version is called with the v1 messages under its own full method names, which is what the wire carries.
 */
enum DraService {
    V1("v1.DRAPlugin", "k8s.io.kubelet.pkg.apis.dra.v1.DRAPlugin"),
    V1BETA1("v1beta1.DRAPlugin", "k8s.io.kubelet.pkg.apis.dra.v1beta1.DRAPlugin"),
    V1ALPHA4("v1alpha3.NodeService", "v1alpha3.Node");

    private static final List<String> SUPPORTED_SINCE_1_34 = List.of(V1.advertised, V1BETA1.advertised);

    final String advertised;
    final MethodDescriptor<NodePrepareResourcesRequest, NodePrepareResourcesResponse> prepare;
    final MethodDescriptor<NodeUnprepareResourcesRequest, NodeUnprepareResourcesResponse> unprepare;

    DraService(String advertised, String grpcService) {
        this.advertised = advertised;
        this.prepare = MethodDescriptor.<NodePrepareResourcesRequest, NodePrepareResourcesResponse>newBuilder()
                .setType(MethodDescriptor.MethodType.UNARY)
                .setFullMethodName(MethodDescriptor.generateFullMethodName(grpcService, "NodePrepareResources"))
                .setRequestMarshaller(ProtoUtils.marshaller(NodePrepareResourcesRequest.getDefaultInstance()))
                .setResponseMarshaller(ProtoUtils.marshaller(NodePrepareResourcesResponse.getDefaultInstance()))
                .build();
        this.unprepare = MethodDescriptor.<NodeUnprepareResourcesRequest, NodeUnprepareResourcesResponse>newBuilder()
                .setType(MethodDescriptor.MethodType.UNARY)
                .setFullMethodName(MethodDescriptor.generateFullMethodName(grpcService, "NodeUnprepareResources"))
                .setRequestMarshaller(ProtoUtils.marshaller(NodeUnprepareResourcesRequest.getDefaultInstance()))
                .setResponseMarshaller(ProtoUtils.marshaller(NodeUnprepareResourcesResponse.getDefaultInstance()))
                .build();
    }

    /**
     * The service a kubelet of {@code version} uses for a plugin advertising {@code supported}.
     *
     * @throws IllegalArgumentException with the kubelet's error text when the plugin is unusable
     */
    static DraService choose(KubernetesVersion version, List<String> supported) {
        if (!version.atLeast(1, 32)) {
            // A 1.31 kubelet knows only v1alpha4 and does not interpret the list (plugins of that era sent "1.0.0").
            return V1ALPHA4;
        }
        if (supported.isEmpty()) {
            throw new IllegalArgumentException("empty list of supported gRPC services (aka supported versions)");
        }
        if (!version.atLeast(1, 34)) {
            // The kubelet's own preference; plugins that advertise neither are legacy ones serving v1alpha4.
            return supported.contains(V1BETA1.advertised) ? V1BETA1 : V1ALPHA4;
        }
        for (String service : supported) {
            if (service.equals(V1.advertised)) {
                return V1;
            }
            if (service.equals(V1BETA1.advertised)) {
                return V1BETA1;
            }
        }
        throw new IllegalArgumentException("none of services supported by the plugin (" + goQuoted(supported)
                + ") are supported by the kubelet (" + goQuoted(SUPPORTED_SINCE_1_34) + ")");
    }

    /** A string list as Go's {@code %q} prints a {@code []string}. */
    private static String goQuoted(List<String> values) {
        List<String> quoted = new ArrayList<>();
        for (String value : values) {
            quoted.add('"' + value.replace("\\", "\\\\").replace("\"", "\\\"") + '"');
        }
        return "[" + String.join(" ", quoted) + "]";
    }
}
