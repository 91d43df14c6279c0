package io.kdra.allocator;

/**
 * The claims cannot be handled at all (unsupported or invalid request, missing class, CEL error, too many results...).
 * Unlike {@link AllocationOutcome.CannotAllocate}, trying another node does not help; the scheduler reports it.
 */
public class AllocationException extends Exception {

    public AllocationException(String message) {
        super(message);
    }

    public AllocationException(String message, Throwable cause) {
        super(message, cause);
    }
}
