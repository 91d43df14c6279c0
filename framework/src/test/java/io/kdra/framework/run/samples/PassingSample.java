package io.kdra.framework.run.samples;

import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Specs for {@code SuiteRunnerTest}; the build's test run does not pick up {@code *Sample} classes. */
@DisplayName("[sig-node] [DRA] samples")
@Tag("sig-node")
@Tag("DRA")
class PassingSample {

    @Test
    @DisplayName("passes")
    void passes() {
    }

    @Test
    @DisplayName("slow one [Slow]")
    @Tag("Slow")
    void slow() {
    }

    @Test
    @DisplayName("not ported")
    @Disabled("not ported yet: needs a piece")
    void notPorted() {
    }
}
