package io.kdra.plugin;

/**
 * The outcome of unpreparing one claim.
 *
 * @param error why unpreparing failed, or {@code null} on success
 */
public record UnprepareResult(String error) {

    private static final UnprepareResult UNPREPARED = new UnprepareResult(null);

    /** A successful unprepare (also the answer for a claim that was not prepared). */
    public static UnprepareResult unprepared() {
        return UNPREPARED;
    }

    /** A failed unprepare with its reason; the kubelet retries it. */
    public static UnprepareResult failed(String error) {
        return new UnprepareResult(error);
    }

    /** Whether unpreparing failed. */
    public boolean isFailed() {
        return error != null;
    }
}
