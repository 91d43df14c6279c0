package io.kdra.plugin;

import com.google.protobuf.InvalidProtocolBufferException;
import io.grpc.ForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;

/**
 * Answers a request message that does not parse with INVALID_ARGUMENT naming the method and the protobuf error.
 * grpc-java parses requests before any interceptor sees them and answers a failure with UNKNOWN "Application error
 * processing RPC", which names nothing; the services are therefore served on the transport's message streams
 * ({@link io.grpc.ServerInterceptors#useMarshalledMessages}) and parsed inside this interceptor's listener.
 */
final class MalformedRequestInterceptor implements ServerInterceptor {

    @Override
    public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(ServerCall<ReqT, RespT> call, Metadata headers,
            ServerCallHandler<ReqT, RespT> next) {
        return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(next.startCall(call, headers)) {
            private boolean refused;

            @Override
            public void onMessage(ReqT message) {
                if (refused) {
                    return;
                }
                try {
                    super.onMessage(message);
                } catch (StatusRuntimeException e) {
                    if (!(e.getCause() instanceof InvalidProtocolBufferException invalid)) {
                        throw e;
                    }
                    refused = true;
                    call.close(Status.INVALID_ARGUMENT.withDescription("invalid "
                            + call.getMethodDescriptor().getFullMethodName() + " request: " + invalid.getMessage()),
                            new Metadata());
                }
            }

            @Override
            public void onHalfClose() {
                if (!refused) {
                    super.onHalfClose();
                }
            }

            @Override
            public void onReady() {
                if (!refused) {
                    super.onReady();
                }
            }
        };
    }
}
