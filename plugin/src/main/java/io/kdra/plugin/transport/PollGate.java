package io.kdra.plugin.transport;

/**
 * Whether the next wait should poll first: yes, unless recent polls found nothing, after which polls get
 * exponentially rarer (at most one wait in 64 polls after six failures in a row); one poll that finds work resets it.
 *
 * <p>Not thread-safe by design: a gate shared by callers may lose an update, which only shifts when the next poll
 * happens.
 */
final class PollGate {

    private static final int MAX_BACKOFF_EXPONENT = 6;

    private int failedPolls;
    private int waitsBeforePoll;

    boolean shouldPoll() {
        if (!Polling.worthPolling()) {
            return false;
        }
        if (waitsBeforePoll > 0) {
            waitsBeforePoll--;
            return false;
        }
        return true;
    }

    void polled(boolean foundWork) {
        if (foundWork) {
            failedPolls = 0;
        } else {
            failedPolls = Math.min(failedPolls + 1, MAX_BACKOFF_EXPONENT);
            waitsBeforePoll = (1 << failedPolls) - 1;
        }
    }
}
