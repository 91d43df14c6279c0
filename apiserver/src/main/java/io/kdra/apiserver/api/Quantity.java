package io.kdra.apiserver.api;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Kubernetes {@code resource.Quantity} read as a decimal, within the bounds Go's Quantity keeps: at most 2^63-1 in
 * magnitude (larger values are capped) and nano precision (finer amounts are rounded up, away from zero), so that no
 * written exponent can make arithmetic on it costly. Keeps the text it was parsed from, which is what messages show
 * (upstream shows the canonical form, which is the same for canonical input such as "10Gi").
 */
public record Quantity(String text, BigDecimal value) implements Comparable<Quantity> {

    /** The regular expression upstream names in its parse error. */
    public static final String FORMAT = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$";

    private static final BigDecimal MAX = BigDecimal.valueOf(Long.MAX_VALUE);
    private static final BigDecimal NANO = new BigDecimal("1e-9");

    private static final Pattern SYNTAX = Pattern.compile("([+-]?)([0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)(.*)");
    private static final Pattern EXPONENT = Pattern.compile("[eE]([+-]?[0-9]+)");
    private static final Map<String, BigDecimal> SUFFIXES = Map.ofEntries(
            Map.entry("", BigDecimal.ONE),
            Map.entry("n", new BigDecimal("1e-9")), Map.entry("u", new BigDecimal("1e-6")),
            Map.entry("m", new BigDecimal("1e-3")), Map.entry("k", new BigDecimal("1e3")),
            Map.entry("M", new BigDecimal("1e6")), Map.entry("G", new BigDecimal("1e9")),
            Map.entry("T", new BigDecimal("1e12")), Map.entry("P", new BigDecimal("1e15")),
            Map.entry("E", new BigDecimal("1e18")),
            Map.entry("Ki", BigDecimal.valueOf(1L << 10)), Map.entry("Mi", BigDecimal.valueOf(1L << 20)),
            Map.entry("Gi", BigDecimal.valueOf(1L << 30)), Map.entry("Ti", BigDecimal.valueOf(1L << 40)),
            Map.entry("Pi", BigDecimal.valueOf(1L << 50)), Map.entry("Ei", BigDecimal.valueOf(1L << 60)));

    private static final BigDecimal BINARY_BASE = BigDecimal.valueOf(1024);
    private static final String[] BINARY_SUFFIXES = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
    private static final String[] DECIMAL_SUFFIXES = {"", "k", "M", "G", "T", "P", "E"};
    private static final String[] EXPONENT_SUFFIXES = {"", "e3", "e6", "e9", "e12", "e15", "e18"};
    private static final String[] FRACTION_SUFFIXES = {"m", "u", "n"};
    private static final Pattern EXPONENT_FORMAT = Pattern.compile("[0-9.][eE][+-]?[0-9]+$");

    /** @return the quantity, or empty when the text is not a quantity */
    public static Optional<Quantity> parse(String text) {
        Matcher matcher = SYNTAX.matcher(text);
        if (!matcher.matches()) {
            return Optional.empty();
        }
        BigDecimal number = new BigDecimal(matcher.group(2).startsWith(".") ? "0" + matcher.group(2) : matcher.group(2));
        if (matcher.group(1).equals("-")) {
            number = number.negate();
        }
        String suffix = matcher.group(3);
        BigDecimal multiplier = SUFFIXES.get(suffix);
        if (multiplier != null) {
            return Optional.of(new Quantity(text, bounded(number.multiply(multiplier))));
        }
        Matcher exponent = EXPONENT.matcher(suffix);
        if (exponent.matches() && exponent.group(1).length() <= 9) {
            return Optional.of(new Quantity(text, bounded(number.scaleByPowerOfTen(Integer.parseInt(exponent.group(1))))));
        }
        return Optional.empty();
    }

    /** Caps the magnitude and rounds to nano precision without arithmetic whose cost grows with the exponent. */
    private static BigDecimal bounded(BigDecimal value) {
        if (value.signum() == 0) {
            return BigDecimal.ZERO;
        }
        if (value.abs().compareTo(MAX) > 0) {
            return value.signum() > 0 ? MAX : MAX.negate();
        }
        if (value.precision() - value.scale() - 1 < -9) {
            return value.signum() > 0 ? NANO : NANO.negate();
        }
        return value.scale() > 9 ? value.setScale(9, RoundingMode.UP) : value;
    }

    /** The sum, spelled in this quantity's format (binary, decimal SI or exponent) as Go's canonical form. */
    public Quantity plus(Quantity other) {
        BigDecimal sum = value.add(other.value);
        return new Quantity(canonical(sum), sum);
    }

    private String canonical(BigDecimal amount) {
        boolean integral = amount.signum() == 0 || amount.stripTrailingZeros().scale() <= 0;
        if (text.endsWith("i") && integral && amount.abs().compareTo(BINARY_BASE) >= 0) {
            return scaled(amount, BINARY_BASE, BINARY_SUFFIXES);
        }
        if (integral) {
            String[] suffixes = EXPONENT_FORMAT.matcher(text).find() ? EXPONENT_SUFFIXES : DECIMAL_SUFFIXES;
            return scaled(amount, BigDecimal.valueOf(1000), suffixes);
        }
        for (int i = 0; i < FRACTION_SUFFIXES.length; i++) {
            BigDecimal scaledAmount = amount.scaleByPowerOfTen(3 * (i + 1)).stripTrailingZeros();
            if (scaledAmount.scale() <= 0 || i == FRACTION_SUFFIXES.length - 1) {
                return scaledAmount.setScale(0, RoundingMode.CEILING).toPlainString() + FRACTION_SUFFIXES[i];
            }
        }
        throw new IllegalStateException("unreachable");
    }

    /** The largest power of {@code base} that divides the amount exactly picks the suffix. */
    private static String scaled(BigDecimal amount, BigDecimal base, String[] suffixes) {
        BigDecimal number = amount.stripTrailingZeros();
        int power = 0;
        while (power < suffixes.length - 1 && number.signum() != 0
                && number.remainder(base).signum() == 0) {
            number = number.divide(base);
            power++;
        }
        return number.toPlainString() + suffixes[power];
    }

    @Override
    public int compareTo(Quantity other) {
        return value.compareTo(other.value);
    }

    @Override
    public String toString() {
        return text;
    }
}
