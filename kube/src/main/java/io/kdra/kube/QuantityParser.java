package io.kdra.kube;

import io.kdra.kube.Quantity.Format;
import java.math.BigDecimal;
import java.math.RoundingMode;

/**
 * Parses quantity text exactly as Kubernetes' {@code resource.ParseQuantity} does, including which values it keeps in
 * its fast 64-bit form (that choice is visible through {@code asInteger()}) and when it keeps the input text as the
 * serialized form.
 */
final class QuantityParser {

    private static final String FORMAT_WRONG =
            "quantities must match the regular expression '" + Quantity.FORMAT + "'";
    private static final String NUMERIC = "unable to parse numeric part of quantity";
    private static final String SUFFIX = "unable to parse quantity's suffix";

    private static final String SUFFIX_CHARACTERS = "eEinumkKMGTP";
    /** Decimal digits that always fit a signed 64-bit integer. */
    private static final int MAX_INT64_DIGITS = 18;
    private static final int NANO_SCALE = 9;
    private static final BigDecimal MAX_BINARY = BigDecimal.valueOf(Long.MAX_VALUE);
    /**
     * Upstream rounds every slow-path value to nanos, which writes out all its digits; a value whose exact form needs
     * more digits than this is rejected instead of exhausting memory.
     */
    static final int MAX_DIGITS = 10_000;

    private QuantityParser() {
    }

    /** The pieces of a quantity string: sign, the numeric text, integer and fraction digits, suffix. */
    private record Split(boolean positive, String numericText, String integerDigits, String fractionDigits,
                         String suffix) {
    }

    /** How a suffix scales the number: {@code base^exponent}, and the format it selects. */
    private record SuffixMeaning(int base, int exponent, Format format) {
    }

    static Quantity parse(String text) {
        if (text.isEmpty()) {
            throw new NumberFormatException(FORMAT_WRONG);
        }
        if (text.equals("0")) {
            return new Quantity(BigDecimal.ZERO, true, Format.DECIMAL_SI, text);
        }
        Split split = split(text);
        SuffixMeaning meaning = interpretSuffix(split.suffix());
        if (meaning == null) {
            throw new NumberFormatException(SUFFIX);
        }
        Quantity fast = parseInt64(text, split, meaning);
        return fast != null ? fast : parseDecimal(split, meaning);
    }

    /** Scans {@code [sign] digits [. digits] [suffix letters [sign] digits]}; anything after that is an error. */
    private static Split split(String text) {
        boolean positive = true;
        int end = text.length();
        int pos = 0;
        if (text.charAt(0) == '-') {
            positive = false;
            pos++;
        } else if (text.charAt(0) == '+') {
            pos++;
        }
        while (pos < end && text.charAt(pos) == '0') {
            pos++;
        }
        if (pos >= end) {
            return new Split(positive, "0", "0", "", "");
        }
        int integerEnd = skipDigits(text, pos);
        if (integerEnd >= end) {
            return new Split(positive, text, text.substring(pos), "", "");
        }
        String integerDigits = integerEnd == pos ? "0" : text.substring(pos, integerEnd);
        pos = integerEnd;
        String fractionDigits = "";
        if (text.charAt(pos) == '.') {
            int fractionEnd = skipDigits(text, pos + 1);
            fractionDigits = text.substring(pos + 1, fractionEnd);
            if (fractionEnd >= end) {
                return new Split(positive, text, integerDigits, fractionDigits, "");
            }
            pos = fractionEnd;
        }
        String numericText = text.substring(0, pos);
        int suffixStart = pos;
        while (pos < end && SUFFIX_CHARACTERS.indexOf(text.charAt(pos)) >= 0) {
            pos++;
        }
        if (pos < end && (text.charAt(pos) == '-' || text.charAt(pos) == '+')) {
            pos++;
        }
        if (skipDigits(text, pos) < end) {
            throw new NumberFormatException(FORMAT_WRONG);
        }
        return new Split(positive, numericText, integerDigits, fractionDigits, text.substring(suffixStart));
    }

    private static int skipDigits(String text, int from) {
        int i = from;
        while (i < text.length() && isDigit(text.charAt(i))) {
            i++;
        }
        return i;
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    private static SuffixMeaning interpretSuffix(String suffix) {
        return switch (suffix) {
            case "" -> new SuffixMeaning(10, 0, Format.DECIMAL_SI);
            case "n" -> new SuffixMeaning(10, -9, Format.DECIMAL_SI);
            case "u" -> new SuffixMeaning(10, -6, Format.DECIMAL_SI);
            case "m" -> new SuffixMeaning(10, -3, Format.DECIMAL_SI);
            case "k" -> new SuffixMeaning(10, 3, Format.DECIMAL_SI);
            case "M" -> new SuffixMeaning(10, 6, Format.DECIMAL_SI);
            case "G" -> new SuffixMeaning(10, 9, Format.DECIMAL_SI);
            case "T" -> new SuffixMeaning(10, 12, Format.DECIMAL_SI);
            case "P" -> new SuffixMeaning(10, 15, Format.DECIMAL_SI);
            case "E" -> new SuffixMeaning(10, 18, Format.DECIMAL_SI);
            case "Ki" -> new SuffixMeaning(2, 10, Format.BINARY_SI);
            case "Mi" -> new SuffixMeaning(2, 20, Format.BINARY_SI);
            case "Gi" -> new SuffixMeaning(2, 30, Format.BINARY_SI);
            case "Ti" -> new SuffixMeaning(2, 40, Format.BINARY_SI);
            case "Pi" -> new SuffixMeaning(2, 50, Format.BINARY_SI);
            case "Ei" -> new SuffixMeaning(2, 60, Format.BINARY_SI);
            default -> interpretExponent(suffix);
        };
    }

    /** {@code e<int>} or {@code E<int>}; the exponent must fit a 32-bit scale that can be negated. */
    private static SuffixMeaning interpretExponent(String suffix) {
        if (suffix.length() < 2 || (suffix.charAt(0) != 'e' && suffix.charAt(0) != 'E')) {
            return null;
        }
        long exponent;
        try {
            exponent = Long.parseLong(suffix.substring(1));
        } catch (NumberFormatException notAnInteger) {
            return null;
        }
        if (exponent > Integer.MAX_VALUE || exponent < -Integer.MAX_VALUE) {
            return null;
        }
        return new SuffixMeaning(10, (int) exponent, Format.DECIMAL_EXPONENT);
    }

    /**
     * Upstream's fast path: few enough digits for a 64-bit mantissa and no precision below nanos. Returns null when
     * the value needs the exact decimal path.
     */
    private static Quantity parseInt64(String text, Split split, SuffixMeaning meaning) {
        int digits = split.integerDigits().length() + split.fractionDigits().length();
        long multiplier = 1;
        int scale;
        int precision;
        if (meaning.format() == Format.BINARY_SI) {
            if (!split.fractionDigits().isEmpty()) {
                return null;
            }
            multiplier = 1L << meaning.exponent();
            // Roughly the decimal digits 2^exponent occupies; copied arithmetic so the same inputs qualify.
            precision = 15 - split.integerDigits().length() - (int) (meaning.exponent() * 3f / 10) - 1;
            scale = 0;
        } else {
            precision = MAX_INT64_DIGITS - digits;
            scale = meaning.exponent() - split.fractionDigits().length();
        }
        if (precision < 0 || scale < -NANO_SCALE) {
            return null;
        }
        String shifted = split.integerDigits() + split.fractionDigits();
        long mantissa = Long.parseLong(shifted);
        long value;
        try {
            value = Math.multiplyExact(mantissa, multiplier);
        } catch (ArithmeticException overflow) {
            return null;
        }
        if (!split.positive()) {
            value = -value;
        }
        boolean textIsCanonical = meaning.format() == Format.BINARY_SI
                ? (mantissa & 0x07) != 0
                : scale % 3 == 0 && !shifted.endsWith("000") && shifted.charAt(0) != '0';
        return new Quantity(BigDecimal.valueOf(value, -scale), true, meaning.format(),
                textIsCanonical ? text : null);
    }

    /** Upstream's exact path: scale by the suffix, round away from zero to nanos, cap binary values at 2^63-1. */
    private static Quantity parseDecimal(Split split, SuffixMeaning meaning) {
        BigDecimal amount;
        try {
            amount = new BigDecimal(split.numericText());
            amount = meaning.base() == 10
                    ? amount.scaleByPowerOfTen(meaning.exponent())
                    : new BigDecimal(amount.unscaledValue().shiftLeft(meaning.exponent()), amount.scale());
        } catch (NumberFormatException | ArithmeticException notRepresentable) {
            throw new NumberFormatException(NUMERIC);
        }
        Format format = meaning.format();
        if (amount.signum() != 0) {
            amount = roundUpToNanos(amount);
        }
        if (format == Format.BINARY_SI && amount.abs().compareTo(MAX_BINARY) > 0) {
            amount = amount.signum() < 0 ? MAX_BINARY.negate() : MAX_BINARY;
        }
        if (format == Format.BINARY_SI && amount.signum() != 0 && amount.abs().compareTo(BigDecimal.ONE) < 0) {
            format = Format.DECIMAL_SI;
        }
        return new Quantity(amount, false, format, null);
    }

    /** Rounds away from zero to exactly nine fraction digits; values below one nano become ±1n. */
    private static BigDecimal roundUpToNanos(BigDecimal amount) {
        long magnitude = (long) amount.precision() - amount.scale();
        if (magnitude < -NANO_SCALE) {
            return BigDecimal.valueOf(amount.signum(), NANO_SCALE);
        }
        if (magnitude + NANO_SCALE > MAX_DIGITS) {
            throw new NumberFormatException(NUMERIC);
        }
        return amount.setScale(NANO_SCALE, RoundingMode.UP);
    }
}
