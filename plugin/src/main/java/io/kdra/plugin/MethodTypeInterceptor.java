package io.kdra.plugin;

import io.grpc.Metadata;
import io.grpc.MethodDescriptor.MethodType;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;

/**
 * Applies an interceptor to unary calls only or to streaming calls only, like the separate unary and stream
 * interceptor chains of a Go gRPC server.
 *
 * @param delegate the caller's interceptor
 * @param unary {@code true} to intercept unary calls, {@code false} to intercept streaming calls
 */
record MethodTypeInterceptor(ServerInterceptor delegate, boolean unary) implements ServerInterceptor {

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
            ServerCallHandler<Q, R> next) {
        boolean isUnary = call.getMethodDescriptor().getType() == MethodType.UNARY;
        return isUnary == unary ? delegate.interceptCall(call, headers, next) : next.startCall(call, headers);
    }
}
