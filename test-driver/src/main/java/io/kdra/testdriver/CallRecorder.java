package io.kdra.testdriver;

import io.grpc.ForwardingServerCall;
import io.grpc.ForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import java.util.ArrayList;
import java.util.List;

/**
 * Records every gRPC call on both sockets of the test driver: an entry is added when the call starts and updated when
 * it ends. Clearing the history forgets calls that are still running, so that they do not reappear when they end.
 * Public for drivers other than the test driver that want the same history (the e2e framework's own-plugin drivers).
 */
public final class CallRecorder implements ServerInterceptor {

    /** A call as it develops; all fields are guarded by the recorder. */
    private static final class Entry {
        private final String fullMethod;
        private Object request;
        private Object response;
        private String error;
        private boolean completed;

        Entry(String fullMethod) {
            this.fullMethod = fullMethod;
        }

        GrpcCall snapshot() {
            return new GrpcCall(fullMethod, request, response, error, completed);
        }
    }

    private final List<Entry> entries = new ArrayList<>();

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
            ServerCallHandler<Q, R> next) {
        Entry entry = new Entry("/" + call.getMethodDescriptor().getFullMethodName());
        boolean unary = call.getMethodDescriptor().getType() == MethodDescriptor.MethodType.UNARY;
        synchronized (this) {
            entries.add(entry);
        }
        ServerCall<Q, R> recordingCall = new ForwardingServerCall.SimpleForwardingServerCall<>(call) {
            @Override
            public void sendMessage(R message) {
                synchronized (CallRecorder.this) {
                    entry.response = message;
                }
                super.sendMessage(message);
            }

            @Override
            public void close(Status status, Metadata trailers) {
                end(entry, status);
                super.close(status, trailers);
            }
        };
        return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(
                next.startCall(recordingCall, headers)) {
            @Override
            public void onMessage(Q message) {
                synchronized (CallRecorder.this) {
                    if (entry.request == null) {
                        entry.request = message;
                    }
                }
                super.onMessage(message);
            }

            @Override
            public void onCancel() {
                // A kubelet ends a health stream by cancelling it, which the upstream driver treats as a normal end.
                end(entry, unary ? Status.CANCELLED.withDescription("call cancelled by the client") : Status.OK);
                super.onCancel();
            }
        };
    }

    private synchronized void end(Entry entry, Status status) {
        if (entry.completed) {
            return;
        }
        entry.completed = true;
        if (!status.isOk()) {
            entry.response = null;
            entry.error = status.getDescription() != null ? status.getDescription() : status.getCode().toString();
        }
    }

    /** Every call recorded since the last {@link #reset}, in the order they started. */
    public synchronized List<GrpcCall> calls() {
        return entries.stream().map(Entry::snapshot).toList();
    }

    /** Forgets the history. */
    public synchronized void reset() {
        entries.clear();
    }
}
