package io.kdra.allocator.cel;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;

/**
 * Go's float64 printing as cel-go's {@code format} uses it: {@code strconv.FormatFloat(v, 'g', -1, 64)}, {@code %.Nf},
 * and golang.org/x/text's en-US {@code %f} (digit grouping) and {@code %e} ({@code 1.234560 × 10⁰³}). Rounding works on
 * the exact binary value, half to even, as Go does.
 */
final class GoFloats {

    private static final char[] SUPERSCRIPT_DIGITS = "⁰¹²³⁴⁵⁶⁷⁸⁹".toCharArray();
    private static final String NARROW_NO_BREAK_SPACE = "\u202f";

    private GoFloats() {
    }

    /** {@code strconv.FormatFloat(value, 'g', -1, 64)}: shortest digits, exponent form below 1e-4 and from 1e6. */
    static String shortest(double value) {
        return shortest(value, false);
    }

    /** {@code strconv.FormatFloat(value, 'f', -1, 64)}: shortest digits, never an exponent. */
    static String shortestPlain(double value) {
        return shortest(value, true);
    }

    private static String shortest(double value, boolean plain) {
        String nonFinite = nonFinite(value);
        if (nonFinite != null) {
            return nonFinite;
        }
        String sign = isNegative(value) ? "-" : "";
        if (value == 0) {
            return sign + "0";
        }
        BigDecimal digits = shortestDigits(Math.abs(value));
        int exponent = digits.precision() - digits.scale() - 1;
        if (plain || exponent >= -4 && exponent < 6) {
            return sign + digits.toPlainString();
        }
        String mantissa = digits.unscaledValue().toString();
        String fraction = mantissa.length() > 1 ? "." + mantissa.substring(1) : "";
        return sign + mantissa.charAt(0) + fraction + "e" + (exponent < 0 ? "-" : "+") + twoDigits(Math.abs(exponent));
    }

    /**
     * The fewest significant digits that read back as {@code positive}, the nearer candidate when both neighbours do,
     * as Go's shortest formatting picks them. Not {@link Double#toString}: before Java 19 it sometimes prints more
     * digits than needed ({@code 1e23} as {@code 9.999999999999999E22}).
     */
    private static BigDecimal shortestDigits(double positive) {
        BigDecimal exact = new BigDecimal(positive);
        for (int precision = 1; ; precision++) {
            BigDecimal down = exact.round(new MathContext(precision, RoundingMode.FLOOR));
            BigDecimal up = exact.round(new MathContext(precision, RoundingMode.CEILING));
            boolean downReadsBack = down.doubleValue() == positive;
            boolean upReadsBack = up.doubleValue() == positive;
            if (downReadsBack && upReadsBack) {
                return exact.round(new MathContext(precision, RoundingMode.HALF_EVEN)).stripTrailingZeros();
            }
            if (downReadsBack || upReadsBack) {
                return (downReadsBack ? down : up).stripTrailingZeros();
            }
        }
    }

    /** Go's {@code %.<precision>f}. */
    static String fixed(double value, int precision) {
        String nonFinite = nonFinite(value);
        if (nonFinite != null) {
            return nonFinite;
        }
        return (isNegative(value) ? "-" : "") + roundedAbs(value, precision).toPlainString();
    }

    /** Go's {@code strconv} text for NaN and the infinities; null for a finite value. */
    private static String nonFinite(double value) {
        if (Double.isNaN(value)) {
            return "NaN";
        }
        if (Double.isInfinite(value)) {
            return value > 0 ? "+Inf" : "-Inf";
        }
        return null;
    }

    /**
     * golang.org/x/text en-US {@code %.<precision>f}: grouped thousands, {@code ∞} for infinities, and negative zero
     * without its sign.
     */
    static String localizedFixed(double value, int precision) {
        if (Double.isNaN(value)) {
            return "NaN";
        }
        String sign = value < 0 ? "-" : "";
        if (Double.isInfinite(value)) {
            return sign + "∞";
        }
        String plain = roundedAbs(value, precision).toPlainString();
        int point = plain.indexOf('.');
        String integer = point < 0 ? plain : plain.substring(0, point);
        StringBuilder grouped = new StringBuilder();
        for (int i = 0; i < integer.length(); i++) {
            if (i > 0 && (integer.length() - i) % 3 == 0) {
                grouped.append(',');
            }
            grouped.append(integer.charAt(i));
        }
        return sign + grouped + (point < 0 ? "" : plain.substring(point));
    }

    /**
     * golang.org/x/text en-US {@code %<width>e}: six fraction digits ({@code 1.052033 × 10⁰³}), left-padded with spaces
     * to {@code width} characters.
     */
    static String localizedScientific(double value, int width) {
        String text = localizedScientific(value);
        int length = text.codePointCount(0, text.length());
        return length < width ? " ".repeat(width - length) + text : text;
    }

    private static String localizedScientific(double value) {
        if (Double.isNaN(value)) {
            return "NaN";
        }
        String sign = value < 0 ? "-" : "";
        if (Double.isInfinite(value)) {
            return sign + "∞";
        }
        int exponent = 0;
        BigDecimal mantissa = BigDecimal.ZERO.setScale(6);
        if (value != 0) {
            BigDecimal exact = new BigDecimal(Math.abs(value));
            exponent = exact.precision() - exact.scale() - 1;
            mantissa = exact.movePointLeft(exponent).setScale(6, RoundingMode.HALF_EVEN);
            if (mantissa.compareTo(BigDecimal.TEN) >= 0) {
                exponent++;
                mantissa = exact.movePointLeft(exponent).setScale(6, RoundingMode.HALF_EVEN);
            }
        }
        StringBuilder power = new StringBuilder(exponent < 0 ? "⁻" : "");
        for (char digit : twoDigits(Math.abs(exponent)).toCharArray()) {
            power.append(SUPERSCRIPT_DIGITS[digit - '0']);
        }
        return sign + mantissa.toPlainString() + NARROW_NO_BREAK_SPACE + "×" + NARROW_NO_BREAK_SPACE + "10" + power;
    }

    private static BigDecimal roundedAbs(double value, int precision) {
        return new BigDecimal(Math.abs(value)).setScale(precision, RoundingMode.HALF_EVEN);
    }

    private static boolean isNegative(double value) {
        return Double.doubleToRawLongBits(value) < 0;
    }

    private static String twoDigits(int number) {
        return number < 10 ? "0" + number : Integer.toString(number);
    }
}
