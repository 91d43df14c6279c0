package io.kdra.plugin.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PollGateTest {

    @Test
    void pollsUntilAPollFindsNothingThenEverMoreRarely() {
        PollGate gate = new PollGate(() -> true);

        assertThat(gate.shouldPoll()).isTrue();
        gate.polled(true);
        assertThat(gate.shouldPoll()).isTrue();
        gate.polled(false);
        assertThat(waitsUntilNextPoll(gate)).isEqualTo(1);
        gate.polled(false);
        assertThat(waitsUntilNextPoll(gate)).isEqualTo(3);
        gate.polled(false);
        assertThat(waitsUntilNextPoll(gate)).isEqualTo(7);
    }

    @Test
    void backsOffToOnePollInSixtyFourWaitsAtMost() {
        PollGate gate = new PollGate(() -> true);
        List<Integer> waits = new ArrayList<>();

        for (int i = 0; i < 9; i++) {
            gate.polled(false);
            waits.add(waitsUntilNextPoll(gate));
        }

        assertThat(waits).containsExactly(1, 3, 7, 15, 31, 63, 63, 63, 63);
    }

    @Test
    void aPollThatFindsWorkEndsTheBackOff() {
        PollGate gate = new PollGate(() -> true);
        for (int i = 0; i < 5; i++) {
            gate.polled(false);
            waitsUntilNextPoll(gate);
        }

        gate.polled(true);

        assertThat(gate.shouldPoll()).isTrue();
        gate.polled(false);
        assertThat(waitsUntilNextPoll(gate)).isEqualTo(1);
    }

    @Test
    void neverPollsWhileTheMachineHasNoCoreToSpare() {
        PollGate gate = new PollGate(() -> false);

        for (int i = 0; i < 100; i++) {
            assertThat(gate.shouldPoll()).isFalse();
        }
    }

    /** How many waits sleep before the gate lets one poll again; consumes that poll. */
    private static int waitsUntilNextPoll(PollGate gate) {
        int sleeps = 0;
        while (!gate.shouldPoll()) {
            sleeps++;
        }
        return sleeps;
    }
}
