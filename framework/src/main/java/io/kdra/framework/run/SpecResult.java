package io.kdra.framework.run;

import java.time.Duration;
import java.util.List;

/**
 * How one spec ended.
 *
 * @param name the full name, as ginkgo prints it
 * @param labels its labels
 * @param specClass the Java class that holds it
 * @param status passed, failed or skipped
 * @param duration how long it ran
 * @param message why it failed or was skipped; empty when it passed
 * @param details for a failure: the stack trace and the framework's report (step, objects, events, gRPC calls)
 */
public record SpecResult(String name, List<String> labels, String specClass, Status status, Duration duration,
        String message, String details) {

    public enum Status { PASSED, FAILED, SKIPPED }

    public SpecResult {
        labels = List.copyOf(labels);
    }
}
