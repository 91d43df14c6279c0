package io.kdra.allocator.cel;

/**
 * A Kubernetes CEL library function failed on its arguments. Thrown from function bindings; its message is the error
 * text Kubernetes reports for the same failure, which evaluation surfaces unchanged.
 */
final class LibraryFunctionException extends RuntimeException {

    LibraryFunctionException(String message) {
        super(message);
    }
}
