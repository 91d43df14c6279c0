package io.kdra.plugin;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageLite;
import com.google.protobuf.Parser;
import io.grpc.BindableService;
import io.grpc.Status;
import io.grpc.StatusException;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import io.kdra.kubelet.api.dra.v1.DRAPluginGrpc;
import io.kdra.kubelet.api.dra.v1.NodePrepareResourcesRequest;
import io.kdra.kubelet.api.dra.v1.NodePrepareResourcesResponse;
import io.kdra.kubelet.api.dra.v1.NodeUnprepareResourcesRequest;
import io.kdra.kubelet.api.dra.v1.NodeUnprepareResourcesResponse;
import io.kdra.kubelet.api.dra.v1alpha4.NodeGrpc;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The DRA gRPC services of each kubelet API version, all backed by one {@link DraCalls}. v1beta1 and v1alpha4 have
 * the same messages and field numbers as v1 (minus {@code share_id}), so their messages are converted through the
 * wire format.
 */
final class DraServices {

    private static final Logger LOG = LoggerFactory.getLogger(DraServices.class);

    private DraServices() {
    }

    /** {@code k8s.io.kubelet.pkg.apis.dra.v1.DRAPlugin}. */
    static BindableService v1(DraCalls calls) {
        return new DRAPluginGrpc.DRAPluginImplBase() {
            @Override
            public void nodePrepareResources(NodePrepareResourcesRequest request,
                    StreamObserver<NodePrepareResourcesResponse> response) {
                respond(response, () -> calls.prepare(request, true));
            }

            @Override
            public void nodeUnprepareResources(NodeUnprepareResourcesRequest request,
                    StreamObserver<NodeUnprepareResourcesResponse> response) {
                respond(response, () -> calls.unprepare(request));
            }
        };
    }

    /** {@code k8s.io.kubelet.pkg.apis.dra.v1beta1.DRAPlugin}. */
    static BindableService v1beta1(DraCalls calls) {
        return new io.kdra.kubelet.api.dra.v1beta1.DRAPluginGrpc.DRAPluginImplBase() {
            @Override
            public void nodePrepareResources(io.kdra.kubelet.api.dra.v1beta1.NodePrepareResourcesRequest request,
                    StreamObserver<io.kdra.kubelet.api.dra.v1beta1.NodePrepareResourcesResponse> response) {
                respond(response, () -> convert(
                        calls.prepare(convert(request, NodePrepareResourcesRequest.parser()), false),
                        io.kdra.kubelet.api.dra.v1beta1.NodePrepareResourcesResponse.parser()));
            }

            @Override
            public void nodeUnprepareResources(io.kdra.kubelet.api.dra.v1beta1.NodeUnprepareResourcesRequest request,
                    StreamObserver<io.kdra.kubelet.api.dra.v1beta1.NodeUnprepareResourcesResponse> response) {
                respond(response, () -> convert(
                        calls.unprepare(convert(request, NodeUnprepareResourcesRequest.parser())),
                        io.kdra.kubelet.api.dra.v1beta1.NodeUnprepareResourcesResponse.parser()));
            }
        };
    }

    /** {@code v1alpha3.Node}, the service of the v1alpha4 API. */
    static BindableService v1alpha4(DraCalls calls) {
        return new NodeGrpc.NodeImplBase() {
            @Override
            public void nodePrepareResources(io.kdra.kubelet.api.dra.v1alpha4.NodePrepareResourcesRequest request,
                    StreamObserver<io.kdra.kubelet.api.dra.v1alpha4.NodePrepareResourcesResponse> response) {
                respond(response, () -> convert(
                        calls.prepare(convert(request, NodePrepareResourcesRequest.parser()), false),
                        io.kdra.kubelet.api.dra.v1alpha4.NodePrepareResourcesResponse.parser()));
            }

            @Override
            public void nodeUnprepareResources(io.kdra.kubelet.api.dra.v1alpha4.NodeUnprepareResourcesRequest request,
                    StreamObserver<io.kdra.kubelet.api.dra.v1alpha4.NodeUnprepareResourcesResponse> response) {
                respond(response, () -> convert(
                        calls.unprepare(convert(request, NodeUnprepareResourcesRequest.parser())),
                        io.kdra.kubelet.api.dra.v1alpha4.NodeUnprepareResourcesResponse.parser()));
            }
        };
    }

    /** A unary call body that fails with a gRPC status. */
    @FunctionalInterface
    private interface UnaryCall<T> {
        T run() throws StatusException;
    }

    private static <T> void respond(StreamObserver<T> response, UnaryCall<T> call) {
        try {
            T result = call.run();
            response.onNext(result);
            response.onCompleted();
        } catch (StatusException e) {
            response.onError(e);
        } catch (StatusRuntimeException e) {
            // The kubelet gave up on the call or the server is stopping; nobody is left to answer.
            LOG.debug("call ended before its response was sent: {}", e.getStatus());
        } catch (RuntimeException e) {
            // A library bug or a claim lookup that returned a malformed object: the kubelet still gets a reason.
            LOG.warn("DRA call failed unexpectedly", e);
            response.onError(Status.INTERNAL.withDescription("internal error: " + e).withCause(e).asException());
        }
    }

    static <T> T convert(MessageLite message, Parser<T> parser) throws StatusException {
        try {
            return parser.parseFrom(message.toByteString());
        } catch (InvalidProtocolBufferException e) {
            throw Status.INTERNAL.withDescription("converting " + message.getClass().getName() + ": " + e.getMessage())
                    .withCause(e).asException();
        }
    }
}
