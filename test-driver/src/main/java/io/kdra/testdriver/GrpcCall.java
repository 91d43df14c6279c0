package io.kdra.testdriver;

/**
 * One gRPC call the test driver received, on either socket, as recorded by {@link ExamplePlugin#grpcCalls()}.
 *
 * @param fullMethod the method with a leading slash as Go gRPC names it, for example
 *     {@code /k8s.io.kubelet.pkg.apis.dra.v1.DRAPlugin/NodePrepareResources}
 * @param request the request message of the called API version; {@code null} for a call whose request has not
 *     arrived yet
 * @param response the last response message sent (for streams, the latest one); {@code null} if none was sent
 *     or the call failed
 * @param error the gRPC status description of a failed call (the code name when there is no description);
 *     {@code null} while in progress and for successful calls
 * @param completed whether the call has ended
 */
public record GrpcCall(String fullMethod, Object request, Object response, String error, boolean completed) {

    /** Whether the call has not ended yet, for example because it is blocked. */
    public boolean inProgress() {
        return !completed;
    }

    /** Whether the call ended successfully. */
    public boolean succeeded() {
        return completed && error == null;
    }

    /** Whether the call ended with an error. */
    public boolean failed() {
        return error != null;
    }

    /** Whether {@link #fullMethod} ends with the suffix, for example {@code /NodePrepareResources}. */
    public boolean isMethod(String methodSuffix) {
        return fullMethod.endsWith(methodSuffix);
    }
}
