package io.kdra.plugin.transport;

import java.util.function.BooleanSupplier;

/**
 * Whether the next wait should poll first: yes, unless recent polls found nothing, after which polls get
 * exponentially rarer (after six failures in a row, one wait in 64 polls); one poll that finds work resets it.
 *
 * <p>Not thread-safe by design: a gate shared by callers may lose an update, which only shifts when the next poll
 * happens.
 */
final class PollGate {

    private static final int MAX_BACKOFF_EXPONENT = 6;

    private final BooleanSupplier machineAllows;
    private int failedPolls;
    private int waitsBeforePoll;

    PollGate() {
        this(Polling::worthPolling);
    }

    /** @param machineAllows whether polling is on and the machine has cores to spare right now */
    PollGate(BooleanSupplier machineAllows) {
        this.machineAllows = machineAllows;
    }

    boolean shouldPoll() {
        if (!machineAllows.getAsBoolean()) {
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
