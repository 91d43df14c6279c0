package io.kdra.allocator;

import io.fabric8.kubernetes.api.model.Quantity;
import java.math.BigDecimal;
import java.util.function.Supplier;

/** Quantity arithmetic on exact decimals. */
final class Quantities {

    private Quantities() {}

    /**
     * The exact value of a quantity.
     *
     * @param what names the quantity for the error message
     * @throws IllegalArgumentException when the quantity is missing or malformed
     */
    static BigDecimal amountOf(Quantity quantity, Supplier<String> what) {
        if (quantity == null || quantity.getAmount() == null) {
            throw new IllegalArgumentException(what.get() + ": quantity is missing");
        }
        try {
            return quantity.getNumericalAmount();
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(
                    what.get() + ": invalid quantity \"" + quantity + "\": " + e.getMessage(), e);
        }
    }

    /** A quantity for a computed amount, written as a plain number. */
    static Quantity quantityOf(BigDecimal amount) {
        return new Quantity(amount.stripTrailingZeros().toPlainString());
    }
}
