package io.kdra.framework.run.samples;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Specs for {@code SuiteRunnerTest}. */
@DisplayName("[sig-node] [DRA] failing samples")
@Tag("sig-node")
@Tag("DRA")
class FailingSample {

    @Test
    @DisplayName("fails")
    void fails() {
        assertThat(1).as("the answer").isEqualTo(2);
    }

    @Test
    @DisplayName("needs nodes")
    void needsNodes() {
        Assumptions.abort("3 ready nodes required, only have 1");
    }

    @Test
    @DisplayName("runs alone [Serial]")
    @Tag("Serial")
    void serial() {
    }
}
