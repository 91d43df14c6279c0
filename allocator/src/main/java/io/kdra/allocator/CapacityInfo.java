package io.kdra.allocator;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.CapacityRequestPolicy;
import io.fabric8.kubernetes.api.model.resource.v1.CapacityRequestPolicyRange;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacity;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * One capacity of a device with its request policy, parsed once. Implements how a request for this capacity is
 * rounded to the amount it consumes, as upstream's consumable-capacity rules do.
 *
 * @param publishedName the name as the device publishes it; results report consumed capacity under this name
 */
record CapacityInfo(String publishedName, Amount value, Amount defaultAmount, List<Amount> validValues, Range range) {

    /** An amount; results report it in Kubernetes' canonical form. */
    record Amount(io.kdra.kube.Quantity quantity) {
        BigDecimal value() {
            return quantity.value();
        }

        Quantity toQuantity() {
            return quantity.toFabric8();
        }
    }

    /** validRange: min, optional max, optional step. */
    record Range(Amount min, BigDecimal max, Amount step) {}

    static CapacityInfo of(String publishedName, DeviceCapacity capacity, Supplier<String> what) {
        Amount value = amount(capacity.getValue(), () -> what.get() + " value");
        CapacityRequestPolicy policy = capacity.getRequestPolicy();
        if (policy == null) {
            return new CapacityInfo(publishedName, value, null, null, null);
        }
        Amount defaultAmount = policy.getDefault() == null ? null
                : amount(policy.getDefault(), () -> what.get() + " requestPolicy.default");
        List<Amount> validValues = null;
        if (policy.getValidValues() != null && !policy.getValidValues().isEmpty()) {
            validValues = new ArrayList<>();
            for (Quantity valid : policy.getValidValues()) {
                validValues.add(amount(valid, () -> what.get() + " requestPolicy.validValues"));
            }
        }
        Range range = null;
        CapacityRequestPolicyRange validRange = policy.getValidRange();
        if (validRange != null) {
            Amount min = validRange.getMin() == null ? new Amount(io.kdra.kube.Quantity.parse("0"))
                    : amount(validRange.getMin(), () -> what.get() + " requestPolicy.validRange.min");
            BigDecimal max = validRange.getMax() == null ? null
                    : amount(validRange.getMax(), () -> what.get() + " requestPolicy.validRange.max").value();
            Amount step = validRange.getStep() == null ? null
                    : amount(validRange.getStep(), () -> what.get() + " requestPolicy.validRange.step");
            if (step != null && step.value().signum() <= 0) {
                throw new IllegalArgumentException(what.get() + " requestPolicy.validRange.step: must be positive");
            }
            range = new Range(min, max, step);
        }
        return new CapacityInfo(publishedName, value, defaultAmount, validValues, range);
    }

    /** The amount a request (null: not requested) consumes: the policy's default or the whole value, else rounded up. */
    Amount consumedBy(Amount requested) {
        if (requested == null) {
            return defaultAmount != null ? defaultAmount : value;
        }
        if (range != null) {
            return roundUpInRange(requested);
        }
        if (validValues != null) {
            for (Amount valid : validValues) {
                if (requested.value().compareTo(valid.value()) <= 0) {
                    return valid;
                }
            }
        }
        return requested;
    }

    /** Whether a consumed amount breaks the request policy (the default is always allowed). */
    boolean violatesPolicy(Amount consumed) {
        if (defaultAmount != null && consumed.value().compareTo(defaultAmount.value()) == 0) {
            return false;
        }
        if (range != null) {
            if (range.max() != null && consumed.value().compareTo(range.max()) > 0) {
                return true;
            }
            return range.step() != null
                    && consumed.value().subtract(range.min().value()).remainder(range.step().value()).signum() != 0;
        }
        if (validValues != null) {
            for (Amount valid : validValues) {
                if (consumed.value().compareTo(valid.value()) == 0) {
                    return false;
                }
            }
            return true;
        }
        return false;
    }

    private Amount roundUpInRange(Amount requested) {
        if (requested.value().compareTo(range.min().value()) < 0) {
            return range.min();
        }
        if (range.step() == null) {
            return requested;
        }
        BigDecimal steps = requested.value().subtract(range.min().value())
                .divide(range.step().value(), 0, RoundingMode.CEILING);
        BigDecimal rounded = range.min().value().add(range.step().value().multiply(steps));
        // Upstream writes the rounded amount in the step's format.
        return new Amount(Quantities.of(rounded, range.step().quantity().format()));
    }

    private static Amount amount(Quantity quantity, Supplier<String> what) {
        return new Amount(Quantities.parse(quantity, what));
    }
}
