package io.kdra.allocator.cel;

import java.util.function.Function;

/**
 * A Kubernetes CEL library function failed on its arguments. Thrown from function bindings; its message is the error
 * text Kubernetes reports for the same failure, which evaluation surfaces unchanged.
 */
final class LibraryFunctionException extends RuntimeException {

    LibraryFunctionException(String message) {
        super(message);
    }

    /** Kubernetes' {@code isX(string)} checks: whether the {@code X(string)} conversion succeeds. */
    static boolean accepts(Function<String, ?> conversion, String text) {
        try {
            conversion.apply(text);
            return true;
        } catch (LibraryFunctionException rejected) {
            return false;
        }
    }
}
