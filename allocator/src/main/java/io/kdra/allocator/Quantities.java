package io.kdra.allocator;

import io.kdra.kube.Quantity;
import java.math.BigDecimal;
import java.util.function.Supplier;

/** Quantities from the API objects, parsed as Kubernetes parses them. */
final class Quantities {

    private Quantities() {}

    /**
     * Parses a model quantity.
     *
     * @param what names the quantity for the error message
     * @throws IllegalArgumentException when the quantity is missing or malformed
     */
    static Quantity parse(io.fabric8.kubernetes.api.model.Quantity quantity, Supplier<String> what) {
        if (quantity == null || quantity.getAmount() == null) {
            throw new IllegalArgumentException(what.get() + ": quantity is missing");
        }
        try {
            return Quantity.fromFabric8(quantity);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    what.get() + ": invalid quantity \"" + quantity + "\": " + e.getMessage(), e);
        }
    }

    static BigDecimal amountOf(io.fabric8.kubernetes.api.model.Quantity quantity, Supplier<String> what) {
        return parse(quantity, what).value();
    }

    /** A computed amount in the given format, as upstream's NewQuantity for whole numbers. */
    static Quantity of(BigDecimal amount, Quantity.Format format) {
        try {
            return Quantity.of(amount.longValueExact(), format);
        } catch (ArithmeticException notAWholeLong) {
            return Quantity.parse(amount.toPlainString());
        }
    }
}
