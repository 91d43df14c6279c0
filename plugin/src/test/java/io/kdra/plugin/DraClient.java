package io.kdra.plugin;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageLite;
import com.google.protobuf.Parser;
import io.grpc.ManagedChannel;
import io.kdra.kubelet.api.dra.v1.Claim;
import io.kdra.kubelet.api.dra.v1.DRAPluginGrpc;
import io.kdra.kubelet.api.dra.v1.NodePrepareResourcesRequest;
import io.kdra.kubelet.api.dra.v1.NodePrepareResourcesResponse;
import io.kdra.kubelet.api.dra.v1.NodeUnprepareResourcesRequest;
import io.kdra.kubelet.api.dra.v1.NodeUnprepareResourcesResponse;
import io.kdra.kubelet.api.dra.v1alpha4.NodeGrpc;
import java.io.UncheckedIOException;
import java.util.Arrays;

/**
 * Calls the DRA service of one API version through its own generated stub, the way a kubelet of that version does,
 * and converts messages from and to v1 for the assertions.
 */
enum DraClient {
    V1 {
        @Override
        NodePrepareResourcesResponse prepare(ManagedChannel channel, NodePrepareResourcesRequest request) {
            return DRAPluginGrpc.newBlockingStub(channel).nodePrepareResources(request);
        }

        @Override
        NodeUnprepareResourcesResponse unprepare(ManagedChannel channel, NodeUnprepareResourcesRequest request) {
            return DRAPluginGrpc.newBlockingStub(channel).nodeUnprepareResources(request);
        }
    },
    V1BETA1 {
        @Override
        NodePrepareResourcesResponse prepare(ManagedChannel channel, NodePrepareResourcesRequest request) {
            return toV1(io.kdra.kubelet.api.dra.v1beta1.DRAPluginGrpc.newBlockingStub(channel).nodePrepareResources(
                    convert(request, io.kdra.kubelet.api.dra.v1beta1.NodePrepareResourcesRequest.parser())));
        }

        @Override
        NodeUnprepareResourcesResponse unprepare(ManagedChannel channel, NodeUnprepareResourcesRequest request) {
            return convert(io.kdra.kubelet.api.dra.v1beta1.DRAPluginGrpc.newBlockingStub(channel)
                    .nodeUnprepareResources(convert(request,
                            io.kdra.kubelet.api.dra.v1beta1.NodeUnprepareResourcesRequest.parser())),
                    NodeUnprepareResourcesResponse.parser());
        }
    },
    V1ALPHA4 {
        @Override
        NodePrepareResourcesResponse prepare(ManagedChannel channel, NodePrepareResourcesRequest request) {
            return toV1(NodeGrpc.newBlockingStub(channel).nodePrepareResources(
                    convert(request, io.kdra.kubelet.api.dra.v1alpha4.NodePrepareResourcesRequest.parser())));
        }

        @Override
        NodeUnprepareResourcesResponse unprepare(ManagedChannel channel, NodeUnprepareResourcesRequest request) {
            return convert(NodeGrpc.newBlockingStub(channel).nodeUnprepareResources(convert(request,
                            io.kdra.kubelet.api.dra.v1alpha4.NodeUnprepareResourcesRequest.parser())),
                    NodeUnprepareResourcesResponse.parser());
        }
    };

    abstract NodePrepareResourcesResponse prepare(ManagedChannel channel, NodePrepareResourcesRequest request);

    abstract NodeUnprepareResourcesResponse unprepare(ManagedChannel channel, NodeUnprepareResourcesRequest request);

    static NodePrepareResourcesRequest prepareRequest(Claim... claims) {
        return NodePrepareResourcesRequest.newBuilder().addAllClaims(Arrays.asList(claims)).build();
    }

    static NodeUnprepareResourcesRequest unprepareRequest(Claim... claims) {
        return NodeUnprepareResourcesRequest.newBuilder().addAllClaims(Arrays.asList(claims)).build();
    }

    static Claim claim(String namespace, String name, String uid) {
        return Claim.newBuilder().setNamespace(namespace).setName(name).setUid(uid).build();
    }

    private static NodePrepareResourcesResponse toV1(MessageLite response) {
        // An older version must not carry share_id, not even as an unknown field.
        NodePrepareResourcesResponse v1 = convert(response, NodePrepareResourcesResponse.parser());
        v1.getClaimsMap().values().forEach(claim -> claim.getDevicesList().forEach(device -> {
            if (device.hasShareId()) {
                throw new AssertionError("share_id sent on an API version without it: " + device);
            }
        }));
        return v1;
    }

    private static <T> T convert(MessageLite message, Parser<T> parser) {
        try {
            return parser.parseFrom(message.toByteString());
        } catch (InvalidProtocolBufferException e) {
            throw new UncheckedIOException(e);
        }
    }
}
