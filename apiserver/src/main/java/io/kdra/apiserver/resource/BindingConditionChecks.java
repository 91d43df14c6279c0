package io.kdra.apiserver.resource;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code bindingConditions} and {@code bindingFailureConditions} of a slice device or an allocation result: condition
 * types, at most 4 each, no duplicates, no overlap, and each list only together with the other.
 */
final class BindingConditionChecks {

    /** {@code BindingConditionsMaxSize} and {@code BindingFailureConditionsMaxSize}. */
    static final int CONDITIONS_MAX = 4;

    private BindingConditionChecks() {
    }

    static void bindingConditions(ValidationRun run, ObjectNode parent, FieldPath path) {
        List<String> conditions = CollectionChecks.strings(run, parent, "bindingConditions", path, CONDITIONS_MAX,
                (condition, itemPath) -> FieldChecks.labelName(run, condition, itemPath));
        List<String> failures = CollectionChecks.strings(run, parent, "bindingFailureConditions", path,
                CONDITIONS_MAX, (condition, itemPath) -> FieldChecks.labelName(run, condition, itemPath));
        FieldPath conditionsPath = path.child("bindingConditions");
        FieldPath failuresPath = path.child("bindingFailureConditions");
        Set<String> seenConditions = new HashSet<>();
        for (int i = 0; i < conditions.size(); i++) {
            if (!seenConditions.add(conditions.get(i))) {
                run.add(FieldErrors.duplicate(conditionsPath.index(i), conditions.get(i)));
            }
        }
        Set<String> seenFailures = new HashSet<>();
        for (int i = 0; i < failures.size(); i++) {
            String failure = failures.get(i);
            if (!seenFailures.add(failure)) {
                run.add(FieldErrors.duplicate(failuresPath.index(i), failure));
            }
            if (seenConditions.contains(failure)) {
                run.add(FieldErrors.invalid(failuresPath.index(i), failure,
                        "bindingFailureConditions must not overlap with bindingConditions"));
            }
        }
        if (conditions.isEmpty() && !failures.isEmpty()) {
            run.add(FieldErrors.invalid(conditionsPath, parent.get("bindingConditions"),
                    "bindingConditions are required to use bindingFailureConditions"));
        }
        if (failures.isEmpty() && !conditions.isEmpty()) {
            run.add(FieldErrors.invalid(failuresPath, parent.get("bindingFailureConditions"),
                    "bindingFailureConditions are required to use bindingConditions"));
        }
    }
}
