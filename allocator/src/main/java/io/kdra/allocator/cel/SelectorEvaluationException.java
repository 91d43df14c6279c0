package io.kdra.allocator.cel;

/** A selector that failed while being evaluated against a device; the message is the runtime error. */
public class SelectorEvaluationException extends Exception {

    public SelectorEvaluationException(String message) {
        super(message);
    }

    public SelectorEvaluationException(String message, Throwable cause) {
        super(message, cause);
    }
}
