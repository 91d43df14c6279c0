package io.kdra.framework;

import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Upstream's Driver interceptors for one node: every call on both sockets (registration, DRA, health streams) is
 * counted first and then, if its method is set to fail, ended with {@code Unknown: injected error} before it reaches
 * the driver. Installed outermost, so injected failures are counted.
 */
final class FaultInjector implements ServerInterceptor {

    /** The error message of an injected failure, as upstream's {@code errors.New("injected error")}. */
    static final String INJECTED_ERROR = "injected error";

    private final String nodeName;
    private final Map<MethodInstance, AtomicLong> callCounts;
    private final Set<MethodInstance> failing;

    FaultInjector(String nodeName, Map<MethodInstance, AtomicLong> callCounts, Set<MethodInstance> failing) {
        this.nodeName = nodeName;
        this.callCounts = callCounts;
        this.failing = failing;
    }

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
            ServerCallHandler<Q, R> next) {
        MethodInstance method = new MethodInstance(nodeName, "/" + call.getMethodDescriptor().getFullMethodName());
        callCounts.computeIfAbsent(method, m -> new AtomicLong()).incrementAndGet();
        if (failing.contains(method)) {
            call.close(Status.UNKNOWN.withDescription(INJECTED_ERROR), new Metadata());
            return new ServerCall.Listener<>() { };
        }
        return next.startCall(call, headers);
    }

    /** A fresh map for call counts, shared by the injectors of one driver. */
    static Map<MethodInstance, AtomicLong> newCallCounts() {
        return new ConcurrentHashMap<>();
    }
}
