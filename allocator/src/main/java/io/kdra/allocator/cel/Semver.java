package io.kdra.allocator.cel;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A semantic version (semver 2.0.0) with the parsing rules, error messages and ordering of
 * {@code github.com/blang/semver/v4}, which Kubernetes uses for version attributes and the CEL {@code semver}
 * library. Ordering follows semver precedence: build metadata is ignored, a pre-release sorts before its release,
 * numeric pre-release identifiers sort before alphanumeric ones. Equality is precedence equality, as in Kubernetes'
 * CEL {@code ==}.
 */
public final class Semver implements Comparable<Semver> {

    private static final String NUMBERS = "0123456789";
    private static final String ALPHANUMERIC = "-abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ" + NUMBERS;
    private static final BigInteger MAX_UINT64 = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);

    /** One dot-separated pre-release identifier: numeric (unsigned 64-bit) or alphanumeric. */
    private record PreRelease(boolean numeric, long number, String text) implements Comparable<PreRelease> {

        @Override
        public int compareTo(PreRelease other) {
            if (numeric != other.numeric) {
                return numeric ? -1 : 1;
            }
            return numeric ? Long.compareUnsigned(number, other.number) : text.compareTo(other.text);
        }

        @Override
        public String toString() {
            return numeric ? Long.toUnsignedString(number) : text;
        }
    }

    private final long major;
    private final long minor;
    private final long patch;
    private final List<PreRelease> preRelease;
    private final List<String> build;

    private Semver(long major, long minor, long patch, List<PreRelease> preRelease, List<String> build) {
        this.major = major;
        this.minor = minor;
        this.patch = patch;
        this.preRelease = List.copyOf(preRelease);
        this.build = List.copyOf(build);
    }

    /**
     * Parses a strict {@code MAJOR.MINOR.PATCH[-PRERELEASE][+BUILD]}.
     *
     * @throws IllegalArgumentException with blang/semver's message, e.g. {@code No Major.Minor.Patch elements found}
     */
    public static Semver parse(String text) {
        if (text.isEmpty()) {
            throw new IllegalArgumentException("Version string empty");
        }
        String[] parts = text.split("\\.", 3);
        if (parts.length != 3) {
            throw new IllegalArgumentException("No Major.Minor.Patch elements found");
        }
        long major = versionNumber(parts[0], "major", "Major");
        long minor = versionNumber(parts[1], "minor", "Minor");
        String patchText = parts[2];
        List<String> build = new ArrayList<>();
        int buildStart = patchText.indexOf('+');
        if (buildStart >= 0) {
            build.addAll(List.of(patchText.substring(buildStart + 1).split("\\.", -1)));
            patchText = patchText.substring(0, buildStart);
        }
        List<String> preReleaseText = new ArrayList<>();
        int preReleaseStart = patchText.indexOf('-');
        if (preReleaseStart >= 0) {
            preReleaseText.addAll(List.of(patchText.substring(preReleaseStart + 1).split("\\.", -1)));
            patchText = patchText.substring(0, preReleaseStart);
        }
        long patch = versionNumber(patchText, "patch", "Patch");
        List<PreRelease> preRelease = new ArrayList<>();
        for (String identifier : preReleaseText) {
            preRelease.add(preReleaseIdentifier(identifier));
        }
        for (String identifier : build) {
            if (identifier.isEmpty()) {
                throw new IllegalArgumentException("Build meta data is empty");
            }
            if (!containsOnly(identifier, ALPHANUMERIC)) {
                throw new IllegalArgumentException(
                        "Invalid character(s) found in build meta data " + goQuote(identifier));
            }
        }
        return new Semver(major, minor, patch, preRelease, build);
    }

    /**
     * Parses after Kubernetes' normalization: drops a leading {@code v}, leading zeros of each component, and fills a
     * missing minor or patch with 0 ({@code v01.2} is {@code 1.2.0}).
     *
     * @throws IllegalArgumentException when the normalized text is not a version
     */
    public static Semver parseNormalized(String text) {
        String withoutPrefix = text.startsWith("v") ? text.substring(1) : text;
        List<String> parts = new ArrayList<>(List.of(withoutPrefix.split("\\.", 3)));
        for (int i = 0; i < parts.size(); i++) {
            String part = parts.get(i);
            if (part.getBytes(StandardCharsets.UTF_8).length > 1) {
                String trimmed = stripLeadingZeros(part);
                if (trimmed.isEmpty() || NUMBERS.indexOf(trimmed.charAt(0)) < 0) {
                    trimmed = "0" + trimmed;
                }
                parts.set(i, trimmed);
            }
        }
        if (parts.size() < 3) {
            String last = parts.get(parts.size() - 1);
            if (last.contains("+") || last.contains("-")) {
                throw new IllegalArgumentException("short version cannot contain PreRelease/Build meta data");
            }
            while (parts.size() < 3) {
                parts.add("0");
            }
        }
        return parse(String.join(".", parts));
    }

    private static String stripLeadingZeros(String text) {
        int start = 0;
        while (start < text.length() && text.charAt(start) == '0') {
            start++;
        }
        return text.substring(start);
    }

    private static long versionNumber(String text, String name, String capitalizedName) {
        if (!containsOnly(text, NUMBERS)) {
            throw new IllegalArgumentException("Invalid character(s) found in " + name + " number " + goQuote(text));
        }
        if (text.length() > 1 && text.charAt(0) == '0') {
            throw new IllegalArgumentException(
                    capitalizedName + " number must not contain leading zeroes " + goQuote(text));
        }
        return parseUnsigned(text);
    }

    private static PreRelease preReleaseIdentifier(String text) {
        if (text.isEmpty()) {
            throw new IllegalArgumentException("Prerelease is empty");
        }
        if (containsOnly(text, NUMBERS)) {
            if (text.length() > 1 && text.charAt(0) == '0') {
                throw new IllegalArgumentException(
                        "Numeric PreRelease version must not contain leading zeroes " + goQuote(text));
            }
            return new PreRelease(true, parseUnsigned(text), null);
        }
        if (containsOnly(text, ALPHANUMERIC)) {
            return new PreRelease(false, 0, text);
        }
        throw new IllegalArgumentException("Invalid character(s) found in prerelease " + goQuote(text));
    }

    /** Go's {@code strconv.ParseUint(text, 10, 64)} with its error texts. */
    private static long parseUnsigned(String digits) {
        if (digits.isEmpty()) {
            throw new IllegalArgumentException("strconv.ParseUint: parsing \"\": invalid syntax");
        }
        BigInteger value = new BigInteger(digits);
        if (value.compareTo(MAX_UINT64) > 0) {
            throw new IllegalArgumentException(
                    "strconv.ParseUint: parsing " + goQuote(digits) + ": value out of range");
        }
        return value.longValue();
    }

    private static boolean containsOnly(String text, String allowed) {
        return text.chars().allMatch(c -> allowed.indexOf(c) >= 0);
    }

    /** Go's {@code %q} for the texts that reach an error message (printable ASCII, quotes and backslashes escaped). */
    private static String goQuote(String text) {
        StringBuilder quoted = new StringBuilder("\"");
        text.codePoints().forEach(c -> {
            if (c == '"' || c == '\\') {
                quoted.append('\\').appendCodePoint(c);
            } else if (c < 0x20 || c == 0x7f) {
                quoted.append(String.format("\\x%02x", c));
            } else {
                quoted.appendCodePoint(c);
            }
        });
        return quoted.append('"').toString();
    }

    /** The major version; values above 2^63-1 wrap as Go's {@code int64(uint64)} conversion does. */
    public long major() {
        return major;
    }

    public long minor() {
        return minor;
    }

    public long patch() {
        return patch;
    }

    @Override
    public int compareTo(Semver other) {
        int result = Long.compareUnsigned(major, other.major);
        if (result == 0) {
            result = Long.compareUnsigned(minor, other.minor);
        }
        if (result == 0) {
            result = Long.compareUnsigned(patch, other.patch);
        }
        if (result != 0) {
            return Integer.signum(result);
        }
        if (preRelease.isEmpty() || other.preRelease.isEmpty()) {
            return Boolean.compare(preRelease.isEmpty(), other.preRelease.isEmpty());
        }
        int shared = Math.min(preRelease.size(), other.preRelease.size());
        for (int i = 0; i < shared; i++) {
            int identifierOrder = preRelease.get(i).compareTo(other.preRelease.get(i));
            if (identifierOrder != 0) {
                return Integer.signum(identifierOrder);
            }
        }
        return Integer.compare(preRelease.size(), other.preRelease.size());
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Semver version && compareTo(version) == 0;
    }

    @Override
    public int hashCode() {
        return List.of(major, minor, patch, preRelease).hashCode();
    }

    @Override
    public String toString() {
        StringBuilder text = new StringBuilder()
                .append(Long.toUnsignedString(major)).append('.')
                .append(Long.toUnsignedString(minor)).append('.')
                .append(Long.toUnsignedString(patch));
        if (!preRelease.isEmpty()) {
            text.append('-').append(String.join(".", preRelease.stream().map(PreRelease::toString).toList()));
        }
        if (!build.isEmpty()) {
            text.append('+').append(String.join(".", build));
        }
        return text.toString();
    }
}
