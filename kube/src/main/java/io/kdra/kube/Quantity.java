package io.kdra.kube;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Kubernetes' {@code resource.Quantity}: an exact fixed-point number with a suffix format, parsed and printed exactly as
 * {@code k8s.io/apimachinery} does. Immutable; equality and ordering compare the numeric value only (as upstream's
 * {@code Equal} and {@code Cmp} do), so {@code 1Gi} equals {@code 1024Mi}.
 *
 * <p>Like upstream, a quantity remembers whether it is held in the fast 64-bit form, because {@link #asLong()} depends
 * on it: {@code quantity("1000m").isInteger()} is false in Kubernetes. {@link #toString()} returns the parsed text when
 * upstream keeps it (already canonical integers, and the 3n-fraction-digit inputs upstream also keeps, such as
 * {@code "1.500"}), otherwise the canonical form.
 */
public final class Quantity implements Comparable<Quantity> {

    /** How a quantity is printed. */
    public enum Format {
        /** {@code 12e6}. */
        DECIMAL_EXPONENT,
        /** {@code 12Mi} (powers of 1024). */
        BINARY_SI,
        /** {@code 12M} (powers of 1000). */
        DECIMAL_SI
    }

    /** The regular expression upstream names when text is not a quantity at all. */
    public static final String FORMAT = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$";

    private static final BigDecimal MAX_INT64 = BigDecimal.valueOf(Long.MAX_VALUE);
    private static final int MAX_ALIGNMENT_DIGITS = QuantityParser.MAX_DIGITS;

    private final BigDecimal amount;
    private final boolean int64Form;
    private final Format format;
    private final String parsedText;

    Quantity(BigDecimal amount, boolean int64Form, Format format, String parsedText) {
        this.amount = amount;
        this.int64Form = int64Form;
        this.format = format;
        this.parsedText = parsedText;
    }

    /**
     * Parses a quantity ({@code 10Gi}, {@code 1.5}, {@code 100m}, {@code 2e3}, ...).
     *
     * @throws NumberFormatException with upstream's message ({@code quantities must match the regular expression ...},
     *     {@code unable to parse quantity's suffix}, {@code unable to parse numeric part of quantity})
     */
    public static Quantity parse(String text) {
        return QuantityParser.parse(text);
    }

    /** {@link #parse(String)}, empty when the text is not a quantity. */
    public static Optional<Quantity> tryParse(String text) {
        try {
            return Optional.of(parse(text));
        } catch (NumberFormatException notAQuantity) {
            return Optional.empty();
        }
    }

    /**
     * Converts a fabric8 model quantity (its amount followed by its format). Surrounding whitespace is ignored, as
     * Kubernetes' JSON decoding ignores it.
     *
     * @throws NumberFormatException when the text is not a valid quantity
     */
    public static Quantity fromFabric8(io.fabric8.kubernetes.api.model.Quantity quantity) {
        String amountText = quantity.getAmount() == null ? "" : quantity.getAmount();
        String formatText = quantity.getFormat() == null ? "" : quantity.getFormat();
        return parse((amountText + formatText).strip());
    }

    /** A whole number in the given format, like upstream's {@code NewQuantity}. */
    public static Quantity of(long value, Format format) {
        return new Quantity(BigDecimal.valueOf(value), true, format, null);
    }

    /** The fabric8 model form of {@link #toString()}. */
    public io.fabric8.kubernetes.api.model.Quantity toFabric8() {
        return new io.fabric8.kubernetes.api.model.Quantity(toString());
    }

    /** The exact numeric value. */
    public BigDecimal value() {
        return amount;
    }

    /**
     * The value with its magnitude capped at 2^63-1, the bound of the int64 amounts Kubernetes computes with. Sums,
     * scales and remainders of capped values stay cheap whatever exponent a quantity was written with ({@code 1e999999999}
     * is a valid quantity); fractions are already at nano precision.
     */
    public BigDecimal cappedValue() {
        if (amount.abs().compareTo(MAX_INT64) > 0) {
            return amount.signum() > 0 ? MAX_INT64 : MAX_INT64.negate();
        }
        return amount;
    }

    public Format format() {
        return format;
    }

    /** -1, 0 or 1. */
    public int signum() {
        return amount.signum();
    }

    public boolean isZero() {
        return amount.signum() == 0;
    }

    /**
     * The sum. The result keeps this quantity's format, or takes {@code other}'s when this one is zero.
     *
     * @throws ArithmeticException when the exact sum would need more than 10,000 digits
     */
    public Quantity add(Quantity other) {
        Format resultFormat = isZero() ? other.format : format;
        if (int64Form && other.int64Form) {
            Quantity sum = addInt64(other.amount, resultFormat);
            if (sum != null) {
                return sum;
            }
        }
        return new Quantity(alignedSum(other.amount), false, resultFormat, null);
    }

    /**
     * The difference. The result keeps this quantity's format, or takes {@code other}'s when this one is zero.
     *
     * @throws ArithmeticException when the exact difference would need more than 10,000 digits
     */
    public Quantity subtract(Quantity other) {
        Format resultFormat = isZero() ? other.format : format;
        if (int64Form && other.int64Form) {
            long otherValue = other.amount.unscaledValue().longValue();
            if (otherValue != Long.MIN_VALUE) {
                Quantity difference = addInt64(BigDecimal.valueOf(-otherValue, other.amount.scale()), resultFormat);
                if (difference != null) {
                    return difference;
                }
            }
        }
        return new Quantity(alignedSum(other.amount.negate()), false, resultFormat, null);
    }

    /** Upstream's 64-bit addition: exact when both mantissas align and add without overflow, else null. */
    private Quantity addInt64(BigDecimal other, Format resultFormat) {
        long a = amount.unscaledValue().longValue();
        long b = other.unscaledValue().longValue();
        if (b == 0) {
            return new Quantity(amount, true, resultFormat, null);
        }
        if (a == 0) {
            return new Quantity(other, true, resultFormat, null);
        }
        // BigDecimal scales count fraction digits; upstream's scale is the power of ten, the opposite sign.
        int scaleA = -amount.scale();
        int scaleB = -other.scale();
        try {
            if (scaleA > scaleB) {
                a = timesPowerOfTen(a, (long) scaleA - scaleB);
                return new Quantity(BigDecimal.valueOf(Math.addExact(a, b), -scaleB), true, resultFormat, null);
            }
            if (scaleB > scaleA) {
                b = timesPowerOfTen(b, (long) scaleB - scaleA);
            }
            return new Quantity(BigDecimal.valueOf(Math.addExact(a, b), -scaleA), true, resultFormat, null);
        } catch (ArithmeticException overflow) {
            return null;
        }
    }

    /** value × 10^exponent; overflow throws within 19 steps, and zero stays zero without looping. */
    private static long timesPowerOfTen(long value, long exponent) {
        long result = value;
        for (long i = 0; i < exponent && result != 0; i++) {
            result = Math.multiplyExact(result, 10);
        }
        return result;
    }

    private BigDecimal alignedSum(BigDecimal other) {
        long alignment = Math.abs((long) amount.scale() - other.scale());
        if (alignment > MAX_ALIGNMENT_DIGITS) {
            if (other.signum() == 0) {
                return amount;
            }
            if (amount.signum() == 0) {
                return other;
            }
            throw new ArithmeticException("quantity arithmetic needs more than " + MAX_ALIGNMENT_DIGITS + " digits");
        }
        return amount.add(other);
    }

    /**
     * The value as a whole number, exactly as upstream's {@code AsInt64}: present only for values held in the 64-bit
     * form with no fraction digits and no overflow. A value upstream keeps in its decimal form (e.g. {@code 1Pi},
     * {@code 0.5Gi}) is absent even when whole.
     */
    public OptionalLong asLong() {
        if (!int64Form) {
            return OptionalLong.empty();
        }
        long value = amount.unscaledValue().longValue();
        int powerOfTen = -amount.scale();
        if (powerOfTen < 0) {
            return OptionalLong.empty();
        }
        try {
            return OptionalLong.of(timesPowerOfTen(value, powerOfTen));
        } catch (ArithmeticException overflow) {
            return OptionalLong.empty();
        }
    }

    /**
     * A double that may lose precision, computed as upstream's {@code AsApproximateFloat64} does (mantissa times a
     * power of ten), so results agree bit for bit; out-of-range values give infinities.
     */
    public double approximateDouble() {
        BigInteger unscaled = amount.unscaledValue();
        double base = int64Form ? (double) unscaled.longValue() : unscaled.doubleValue();
        int exponent = -amount.scale();
        return exponent == 0 ? base : base * GoMath.pow10(exponent);
    }

    @Override
    public int compareTo(Quantity other) {
        return amount.compareTo(other.amount);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Quantity quantity && compareTo(quantity) == 0;
    }

    @Override
    public int hashCode() {
        return amount.signum() == 0 ? 0 : amount.stripTrailingZeros().hashCode();
    }

    /** Upstream's {@code String()}: the kept input text, otherwise the canonical form. */
    @Override
    public String toString() {
        return parsedText != null ? parsedText : QuantityFormatter.canonical(amount, format);
    }
}
