package io.kdra.apiserver.resource;

import io.kdra.kube.Quantity;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** The {@code requestPolicy} of a consumable capacity ({@code validateRequestPolicy}). */
final class RequestPolicyChecks {

    private static final BigDecimal MAX_INT64 = BigDecimal.valueOf(Long.MAX_VALUE);

    private RequestPolicyChecks() {
    }

    static void requestPolicy(ValidationRun run, Quantity capacity, ObjectNode policy, FieldPath path) {
        List<JsonNode> validValues = run.items(policy, "validValues", path);
        ObjectNode validRange = run.object(policy, "validRange", path);
        Quantity defaultValue = run.quantity(policy, "default", path);
        if (!validValues.isEmpty() && validRange != null) {
            run.add(FieldErrors.forbidden(path,
                    "exactly one policy can be specified, cannot specify \"validValues\" and \"validRange\" at the same time"));
        } else if (!validValues.isEmpty()) {
            if (defaultValue == null) {
                run.add(FieldErrors.required(path.child("default"), "required when validValues is defined"));
            } else {
                validValues(run, defaultValue, capacity, validValues, path.child("validValues"));
            }
        } else if (validRange != null) {
            if (defaultValue == null) {
                run.add(FieldErrors.required(path.child("default"), "required when validRange is defined"));
            } else {
                validRange(run, defaultValue, capacity, validRange, path.child("validRange"));
            }
        }
    }

    private static void validValues(ValidationRun run, Quantity defaultValue, Quantity capacity,
                                    List<JsonNode> items, FieldPath path) {
        List<Quantity> values = new ArrayList<>(items.size());
        for (int i = 0; i < items.size(); i++) {
            values.add(run.quantity(items.get(i), path.index(i)));
        }
        if (values.contains(null)) {
            return;
        }
        for (int i = 0; i + 1 < values.size(); i++) {
            if (values.get(i).compareTo(values.get(i + 1)) > 0) {
                run.add(FieldErrors.invalid(path.index(i + 1), values.get(i + 1).toString(),
                        "values must be sorted in ascending order"));
            }
        }
        boolean defaultFound = false;
        if (!CollectionChecks.tooMany(run, values.size(), DeviceChecks.VALID_VALUES_MAX, path)) {
            Set<BigDecimal> seen = new HashSet<>();
            for (int i = 0; i < values.size(); i++) {
                Quantity option = values.get(i);
                if (option.compareTo(capacity) > 0) {
                    run.add(FieldErrors.invalid(path.index(i), option.toString(),
                            "option is larger than capacity value: " + capacity.toString()));
                }
                defaultFound |= option.compareTo(defaultValue) == 0;
            }
            for (int i = 0; i < values.size(); i++) {
                BigDecimal key = values.get(i).cappedValue().setScale(0, RoundingMode.CEILING);
                if (!seen.add(key)) {
                    run.add(FieldErrors.duplicate(path.index(i), key.toPlainString()));
                }
            }
        }
        if (!defaultFound) {
            run.add(FieldErrors.invalid(path, defaultValue.toString(),
                    "default value is not valid according to the requestPolicy"));
        }
    }

    private static void validRange(ValidationRun run, Quantity defaultValue, Quantity capacity, ObjectNode range,
                                   FieldPath path) {
        Quantity min = run.quantity(range, "min", path);
        Quantity max = run.quantity(range, "max", path);
        Quantity step = run.quantity(range, "step", path);
        if (min == null) {
            run.add(FieldErrors.required(path.child("min"), "required when validRange is defined"));
            return;
        }
        if (min.compareTo(capacity) > 0) {
            run.add(FieldErrors.invalid(path.child("min"), min.toString(),
                    "min is larger than capacity value: " + capacity.toString()));
        }
        if (defaultValue.compareTo(min) < 0) {
            run.add(FieldErrors.invalid(path.child("default"), defaultValue.toString(), "default is less than min: " + min.toString()));
        }
        if (max != null) {
            if (min.compareTo(max) > 0) {
                run.add(FieldErrors.invalid(path.child("max"), min.toString(), "min is larger than max: " + max.toString()));
            }
            if (max.compareTo(capacity) > 0) {
                run.add(FieldErrors.invalid(path.child("max"), max.toString(),
                        "max is larger than capacity value: " + capacity.toString()));
            }
            if (defaultValue.compareTo(max) > 0) {
                run.add(FieldErrors.invalid(path.child("default"), defaultValue.toString(),
                        "default is more than max: " + max.toString()));
            }
        }
        if (step == null) {
            return;
        }
        if (step.value().signum() <= 0) {
            run.add(FieldErrors.invalid(path.child("step"), step.toString(), "must be greater than zero"));
            return;
        }
        // past int64 the sum could need any number of digits; those values get their own error below
        if (inInt64(min) && inInt64(step)) {
            Quantity oneStep = min.add(step);
            if (oneStep.compareTo(capacity) > 0) {
                run.add(FieldErrors.invalid(path.child("step"), step.toString(),
                        "one step " + oneStep + " is larger than capacity value: " + capacity));
            }
        }
        boolean unsafe = outOfInt64(run, defaultValue, path.child("default"))
                | outOfInt64(run, min, path.child("min"))
                | (max != null && outOfInt64(run, max, path.child("max")))
                | outOfInt64(run, step, path.child("step"));
        if (unsafe) {
            return;
        }
        stepMultiple(run, defaultValue, min, step, path.child("step"));
        if (max != null) {
            stepMultiple(run, max, min, step, path.child("step"));
        }
    }

    private static boolean inInt64(Quantity value) {
        return value.signum() >= 0 && value.value().compareTo(MAX_INT64) <= 0;
    }

    /** Upstream's step arithmetic needs values in [0, MaxInt64]. */
    private static boolean outOfInt64(ValidationRun run, Quantity value, FieldPath path) {
        if (value.value().signum() < 0) {
            run.add(FieldErrors.invalid(path, value.toString(), "must be greater than or equal to 0"));
            return true;
        }
        if (value.value().compareTo(MAX_INT64) > 0) {
            run.add(FieldErrors.invalid(path, value.toString(), "must not be larger than 9223372036854775807"));
            return true;
        }
        return false;
    }

    private static void stepMultiple(ValidationRun run, Quantity value, Quantity min, Quantity step, FieldPath path) {
        if (value.value().subtract(min.value()).remainder(step.value()).signum() != 0) {
            run.add(FieldErrors.invalid(path, value.toString(),
                    "value is not a multiple of a given step (" + step.toString() + ") from (" + min.toString() + ")"));
        }
    }
}
