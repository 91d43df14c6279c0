package io.kdra.apiserver.protobuf;

/** A protobuf body that cannot be read: its message says what is wrong, as kube-apiserver's decoder words it. */
public final class ProtobufException extends RuntimeException {

    ProtobufException(String message) {
        super(message);
    }

    ProtobufException(String message, Throwable cause) {
        super(message, cause);
    }
}
