package io.kdra.cluster.kubelet;

import io.grpc.Status;
import java.util.Locale;

/** gRPC errors as the Go kubelet prints them, so messages in events read as upstream's. */
final class GrpcErrors {

    private GrpcErrors() {}

    /** {@code rpc error: code = <Code> desc = <description>}, grpc-go's rendering of a status error. */
    static String text(Throwable error) {
        Status status = Status.fromThrowable(error);
        String description = status.getDescription() == null ? "" : status.getDescription();
        return "rpc error: code = " + goName(status.getCode()) + " desc = " + description;
    }

    /** grpc-go's name of a code: {@code DEADLINE_EXCEEDED} is {@code DeadlineExceeded}, {@code CANCELLED} is
     * {@code Canceled}. */
    static String goName(Status.Code code) {
        if (code == Status.Code.OK) {
            return "OK";
        }
        if (code == Status.Code.CANCELLED) {
            return "Canceled";
        }
        StringBuilder name = new StringBuilder();
        for (String part : code.name().split("_")) {
            name.append(part.charAt(0)).append(part.substring(1).toLowerCase(Locale.ROOT));
        }
        return name.toString();
    }
}
