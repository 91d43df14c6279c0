package io.kdra.framework.run;

import java.time.Duration;
import java.util.List;

/** The outcome of a run: each spec's result, in the order they finished, and the wall time. */
public record RunResult(List<SpecResult> specs, Duration wallTime) {

    public RunResult {
        specs = List.copyOf(specs);
    }

    public long count(SpecResult.Status status) {
        return specs.stream().filter(spec -> spec.status() == status).count();
    }

    public boolean succeeded() {
        return count(SpecResult.Status.FAILED) == 0;
    }

    /** The last line of a run: {@code N passed, N failed, N skipped}. */
    public String summary() {
        return count(SpecResult.Status.PASSED) + " passed, " + count(SpecResult.Status.FAILED) + " failed, "
                + count(SpecResult.Status.SKIPPED) + " skipped";
    }
}
