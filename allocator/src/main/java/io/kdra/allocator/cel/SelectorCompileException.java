package io.kdra.allocator.cel;

/** A selector expression that cannot be compiled; the message is the compiler's diagnosis. */
public class SelectorCompileException extends Exception {

    public SelectorCompileException(String message) {
        super(message);
    }

    public SelectorCompileException(String message, Throwable cause) {
        super(message, cause);
    }
}
