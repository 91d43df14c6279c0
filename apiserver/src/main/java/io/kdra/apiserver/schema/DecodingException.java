package io.kdra.apiserver.schema;

/** A value the Go decoder of kube-apiserver would not accept, with the message it gives. */
public final class DecodingException extends RuntimeException {

    DecodingException(String message) {
        super(message, null, false, false);
    }
}
