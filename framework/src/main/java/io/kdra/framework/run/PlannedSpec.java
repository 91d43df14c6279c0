package io.kdra.framework.run;

import java.util.List;
import java.util.Optional;

/**
 * A spec a run would execute: its full name, labels, class, and why it will be skipped if it is disabled.
 */
public record PlannedSpec(String name, List<String> labels, String specClass, Optional<String> disabledReason) {

    public PlannedSpec {
        labels = List.copyOf(labels);
    }
}
