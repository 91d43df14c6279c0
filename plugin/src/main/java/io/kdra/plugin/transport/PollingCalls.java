package io.kdra.plugin.transport;

import com.google.common.util.concurrent.ListenableFuture;
import com.google.common.util.concurrent.MoreExecutors;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import java.util.concurrent.ExecutionException;

/**
 * Blocking unary calls that poll for the answer for a short window before the caller parks (see {@link Polling}):
 * the same contract as {@link ClientCalls#blockingUnaryCall(Channel, MethodDescriptor, CallOptions, Object)}.
 */
public final class PollingCalls {

    private static final long WINDOW_NANOS = 2 * Polling.WINDOW_NANOS;
    /** Shared by all callers: many callers at once, or a slow driver, make answers come late and polls rare. */
    private static final PollGate GATE = new PollGate();

    private PollingCalls() {
    }

    /**
     * Makes a unary call and waits for its answer.
     *
     * @throws StatusRuntimeException with the call's status when it fails, or CANCELLED when the calling thread is
     *     interrupted (the call is then cancelled and the interrupt flag set again)
     */
    public static <Q, R> R blockingUnaryCall(Channel channel, MethodDescriptor<Q, R> method, CallOptions options,
            Q request) {
        if (!GATE.shouldPoll()) {
            return ClientCalls.blockingUnaryCall(channel, method, options, request);
        }
        // the answer completes the future on the event loop: a hop through the channel's executor would cost a wake-up
        ClientCall<Q, R> call = channel.newCall(method, options.withExecutor(MoreExecutors.directExecutor()));
        ListenableFuture<R> answer = ClientCalls.futureUnaryCall(call, request);
        GATE.polled(Polling.poll(answer::isDone, WINDOW_NANOS));
        try {
            return answer.get();
        } catch (InterruptedException e) {
            call.cancel("Thread interrupted", e);
            Thread.currentThread().interrupt();
            throw Status.CANCELLED.withDescription("Thread interrupted").withCause(e).asRuntimeException();
        } catch (ExecutionException e) {
            throw new StatusRuntimeException(Status.fromThrowable(e.getCause()),
                    Status.trailersFromThrowable(e.getCause()));
        }
    }
}
