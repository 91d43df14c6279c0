package io.kdra.kube;

import io.kdra.kube.Quantity.Format;
import java.math.BigDecimal;
import java.math.BigInteger;

/**
 * Kubernetes' canonical quantity form: no fraction digits, the largest exponent (suffix) that loses nothing, a
 * decimal exponent that is a multiple of three. Values without a suffix in their format (beyond {@code E} or
 * {@code Ei}, below {@code n}) fall back to exponent notation, as current upstream does.
 */
final class QuantityFormatter {

    private static final BigInteger THOUSAND_AND_TWENTY_FOUR = BigInteger.valueOf(1024);
    private static final String[] BINARY_SUFFIXES = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
    /** Suffixes for decimal exponents -9, -6, ..., 18. */
    private static final String[] DECIMAL_SUFFIXES = {"n", "u", "m", "", "k", "M", "G", "T", "P", "E"};
    private static final BigDecimal BINARY_AS_DECIMAL_LIMIT = BigDecimal.valueOf(1024);

    private QuantityFormatter() {
    }

    static String canonical(BigDecimal amount, Format format) {
        if (amount.signum() == 0) {
            return "0";
        }
        if (format == Format.BINARY_SI) {
            return binary(amount);
        }
        return decimal(amount, format);
    }

    /**
     * Binary form for whole values of magnitude 1024 or more; smaller or fractional values print as decimal SI so
     * nothing is rounded.
     */
    private static String binary(BigDecimal amount) {
        if (amount.abs().compareTo(BINARY_AS_DECIMAL_LIMIT) < 0) {
            return decimal(amount, Format.DECIMAL_SI);
        }
        BigInteger whole;
        try {
            whole = amount.toBigIntegerExact();
        } catch (ArithmeticException fractional) {
            return decimal(amount, Format.DECIMAL_SI);
        }
        int powers = 0;
        BigInteger[] quotientAndRemainder = whole.divideAndRemainder(THOUSAND_AND_TWENTY_FOUR);
        while (whole.abs().compareTo(THOUSAND_AND_TWENTY_FOUR) >= 0 && quotientAndRemainder[1].signum() == 0) {
            whole = quotientAndRemainder[0];
            powers++;
            quotientAndRemainder = whole.divideAndRemainder(THOUSAND_AND_TWENTY_FOUR);
        }
        if (powers >= BINARY_SUFFIXES.length) {
            return decimal(amount, Format.DECIMAL_EXPONENT);
        }
        return whole + BINARY_SUFFIXES[powers];
    }

    private static String decimal(BigDecimal amount, Format format) {
        BigDecimal stripped = amount.stripTrailingZeros();
        BigInteger mantissa = stripped.unscaledValue();
        long exponent = -(long) stripped.scale();
        int belowMultipleOfThree = (int) Math.floorMod(exponent, 3L);
        mantissa = mantissa.multiply(BigInteger.TEN.pow(belowMultipleOfThree));
        exponent -= belowMultipleOfThree;
        String suffix = format == Format.DECIMAL_SI ? decimalSuffix(exponent) : null;
        if (suffix == null) {
            suffix = exponent == 0 ? "" : "e" + exponent;
        }
        return mantissa + suffix;
    }

    /** The SI suffix for a multiple-of-three exponent, or null outside {@code n}..{@code E}. */
    private static String decimalSuffix(long exponent) {
        if (exponent < -9 || exponent > 18) {
            return null;
        }
        return DECIMAL_SUFFIXES[(int) exponent / 3 + 3];
    }
}
