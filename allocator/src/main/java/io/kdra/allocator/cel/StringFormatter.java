package io.kdra.allocator.cel;

import io.kdra.kube.GoQuote;
import com.google.common.primitives.UnsignedLong;
import dev.cel.common.types.TypeType;
import dev.cel.common.values.CelByteString;
import dev.cel.common.values.NullValue;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * cel-go's {@code <string>.format(<list>)} as the strings extension version 2 (Kubernetes' base environment) provides
 * it ({@code ext/formatting.go}, locale en-US): clauses {@code %s %d %f %e %b %o %x %X}, {@code %%}, precision
 * {@code %.3f}, and cel-go's error texts. Quirks kept: {@code %e} always prints six fraction digits (upstream passes
 * the precision as a width, which pads), {@code %f} groups thousands ({@code 1,234.500000}), {@code %e} prints
 * {@code 1.234500 × 10⁰³}, negative zero loses its sign in both, and values inside lists and maps print as CEL
 * literals.
 */
final class StringFormatter {

    /** Protection upstream lacks: {@code %.2000000000f} would build a two-gigabyte string. */
    static final int MAX_PRECISION = 10_000;

    private static final int DEFAULT_PRECISION = 6;
    private static final DateTimeFormatter RFC3339 = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss")
            .withZone(ZoneOffset.UTC);

    private StringFormatter() {
    }

    static String format(String template, List<?> args) {
        StringBuilder out = new StringBuilder();
        int argIndex = 0;
        int i = 0;
        while (i < template.length()) {
            char c = template.charAt(i);
            if (c != '%') {
                out.append(c);
                i++;
                continue;
            }
            if (i + 1 < template.length() && template.charAt(i + 1) == '%') {
                out.append('%');
                i += 2;
                continue;
            }
            if (argIndex >= args.size()) {
                throw new LibraryFunctionException("index " + argIndex + " out of range");
            }
            if (i + 1 >= template.length()) {
                throw new LibraryFunctionException("unexpected end of string");
            }
            i = appendClause(template, i + 1, args.get(argIndex), out);
            argIndex++;
        }
        return out.toString();
    }

    /** Formats one clause starting after its {@code %}; returns the index after the clause. */
    private static int appendClause(String template, int start, Object arg, StringBuilder out) {
        int i = start;
        Integer precision = null;
        if (template.charAt(i) == '.') {
            int digitsStart = i + 1;
            i = digitsStart;
            while (i < template.length() && isAsciiDigit(template.charAt(i))) {
                i++;
            }
            if (i >= template.length()) {
                throw clauseError("error while parsing precision: could not find end of precision specifier");
            }
            precision = parsePrecision(template.substring(digitsStart, i));
        }
        char verb = template.charAt(i);
        String text;
        try {
            text = switch (verb) {
                case 's' -> string(arg);
                case 'd' -> decimal(arg);
                case 'f' -> fixed(arg, precision == null ? DEFAULT_PRECISION : precision);
                case 'e' -> scientific(arg, precision == null ? DEFAULT_PRECISION : precision);
                case 'b' -> binary(arg);
                case 'o' -> octal(arg);
                case 'x' -> hex(arg, false);
                case 'X' -> hex(arg, true);
                default -> null;
            };
        } catch (LibraryFunctionException formatting) {
            throw new LibraryFunctionException("error during formatting: " + formatting.getMessage());
        }
        if (text == null) {
            throw clauseError("unrecognized formatting clause \"" + goByteAsRune(template, i) + "\"");
        }
        out.append(text);
        return i + 1;
    }

    private static int parsePrecision(String digits) {
        String converting = "error while parsing precision: error while converting precision to integer: ";
        if (digits.isEmpty()) {
            throw clauseError(converting + "strconv.Atoi: parsing \"\": invalid syntax");
        }
        long precision;
        try {
            precision = Long.parseLong(digits);
        } catch (NumberFormatException outOfRange) {
            throw clauseError(converting + "strconv.Atoi: parsing \"" + digits + "\": value out of range");
        }
        if (precision > MAX_PRECISION) {
            throw clauseError("error while parsing precision: precision " + precision + " exceeds the limit of "
                    + MAX_PRECISION);
        }
        return (int) precision;
    }

    private static LibraryFunctionException clauseError(String message) {
        return new LibraryFunctionException("could not parse formatting clause: " + message);
    }

    /** Upstream reads the clause letter as one byte, so a non-ASCII letter shows as its first UTF-8 byte. */
    private static char goByteAsRune(String template, int index) {
        char c = template.charAt(index);
        if (c < 0x80) {
            return c;
        }
        byte first = template.substring(index, Character.offsetByCodePoints(template, index, 1))
                .getBytes(StandardCharsets.UTF_8)[0];
        return (char) (first & 0xff);
    }

    private static String string(Object arg) {
        if (arg instanceof List<?> list) {
            return list(list);
        }
        if (arg instanceof Map<?, ?> map) {
            return map(map);
        }
        if (arg instanceof Long || arg instanceof UnsignedLong || arg instanceof Boolean || arg instanceof String) {
            return arg.toString();
        }
        if (arg instanceof Double value) {
            return GoFloats.shortest(value);
        }
        if (arg instanceof CelByteString bytes) {
            return new String(bytes.toByteArray(), StandardCharsets.UTF_8);
        }
        if (arg instanceof Instant timestamp) {
            return timestamp(timestamp);
        }
        if (arg instanceof Duration duration) {
            return duration(duration);
        }
        if (arg instanceof TypeType type) {
            return type.parameters().isEmpty() ? type.name() : type.parameters().get(0).name();
        }
        if (arg instanceof NullValue) {
            return "null";
        }
        throw new LibraryFunctionException("string clause can only be used on strings, bools, bytes, ints, doubles, "
                + "maps, lists, types, durations, and timestamps, was given " + CelValueTypes.nameOf(arg));
    }

    /** A list element or map value as a CEL literal. */
    private static String literal(Object value) {
        if (value instanceof Long || value instanceof UnsignedLong) {
            return value.toString();
        }
        if (value instanceof String text) {
            return GoQuote.quote(text);
        }
        if (value instanceof CelByteString) {
            return "b" + GoQuote.quote(string(value));
        }
        if (value instanceof Boolean || value instanceof NullValue || value instanceof TypeType) {
            return string(value);
        }
        if (value instanceof Instant timestamp) {
            return "timestamp(" + GoQuote.quote(timestamp(timestamp)) + ")";
        }
        if (value instanceof Duration duration) {
            return "duration(" + GoQuote.quote(duration(duration)) + ")";
        }
        if (value instanceof List<?> list) {
            return list(list);
        }
        if (value instanceof Map<?, ?> map) {
            return map(map);
        }
        if (value instanceof Double number) {
            String text = GoFloats.fixed(number, DEFAULT_PRECISION);
            return number.isNaN() || number.isInfinite() ? GoQuote.quote(text) : text;
        }
        throw new LibraryFunctionException("no formatting function for " + CelValueTypes.nameOf(value));
    }

    private static String list(List<?> list) {
        List<String> elements = new ArrayList<>();
        for (Object element : list) {
            elements.add(literal(element));
        }
        return "[" + String.join(", ", elements) + "]";
    }

    private static String map(Map<?, ?> map) {
        List<String[]> entries = new ArrayList<>();
        for (Map.Entry<?, ?> entry : map.entrySet()) {
            Object key = entry.getKey();
            if (!(key instanceof String || key instanceof Boolean || key instanceof Long
                    || key instanceof UnsignedLong)) {
                throw new LibraryFunctionException(
                        "no formatting function for map key of type " + CelValueTypes.nameOf(key));
            }
            entries.add(new String[] {literal(key), literal(entry.getValue())});
        }
        entries.sort((a, b) -> ListsLibrary.compareCodePoints(a[0], b[0]));
        List<String> pairs = new ArrayList<>();
        for (String[] entry : entries) {
            pairs.add(entry[0] + ":" + entry[1]);
        }
        return "{" + String.join(", ", pairs) + "}";
    }

    /** cel-go's timestamp to string: RFC 3339 in UTC with the fraction's trailing zeros dropped. */
    private static String timestamp(Instant timestamp) {
        String fraction = "";
        if (timestamp.getNano() != 0) {
            fraction = "." + String.format(Locale.ROOT, "%09d", timestamp.getNano()).replaceFirst("0+$", "");
        }
        return RFC3339.format(timestamp) + fraction + "Z";
    }

    /** cel-go's duration to string: seconds as a float64 printed with the shortest digits, then {@code s}. */
    private static String duration(Duration duration) {
        return GoFloats.shortestPlain(duration.getSeconds() + duration.getNano() / 1e9) + "s";
    }

    private static String decimal(Object arg) {
        if (arg instanceof Long || arg instanceof UnsignedLong) {
            return arg.toString();
        }
        throw new LibraryFunctionException(
                "decimal clause can only be used on integers, was given " + CelValueTypes.nameOf(arg));
    }

    private static String fixed(Object arg, int precision) {
        return GoFloats.localizedFixed(floatArgument(arg, "fixed-point"), precision);
    }

    /** Upstream builds {@code %<precision>e}: the precision is a width, so it pads and never changes the digits. */
    private static String scientific(Object arg, int width) {
        return GoFloats.localizedScientific(floatArgument(arg, "scientific"), width);
    }

    /** Doubles, and the strings {@code NaN}, {@code Infinity} and {@code -Infinity}, which upstream also accepts. */
    private static double floatArgument(Object arg, String clause) {
        if (arg instanceof Double value) {
            return value;
        }
        if (arg instanceof String text) {
            switch (text) {
                case "NaN":
                    return Double.NaN;
                case "Infinity":
                    return Double.POSITIVE_INFINITY;
                case "-Infinity":
                    return Double.NEGATIVE_INFINITY;
                default:
                    break;
            }
        }
        throw new LibraryFunctionException(
                clause + " clause can only be used on doubles, was given " + CelValueTypes.nameOf(arg));
    }

    private static String binary(Object arg) {
        if (arg instanceof Long value) {
            return Long.toString(value, 2);
        }
        if (arg instanceof UnsignedLong value) {
            return value.toString(2);
        }
        if (arg instanceof Boolean value) {
            return value ? "1" : "0";
        }
        throw new LibraryFunctionException(
                "only integers and bools can be formatted as binary, was given " + CelValueTypes.nameOf(arg));
    }

    private static String octal(Object arg) {
        if (arg instanceof Long value) {
            return Long.toString(value, 8);
        }
        if (arg instanceof UnsignedLong value) {
            return value.toString(8);
        }
        throw new LibraryFunctionException(
                "octal clause can only be used on integers, was given " + CelValueTypes.nameOf(arg));
    }

    private static String hex(Object arg, boolean upperCase) {
        String hex;
        if (arg instanceof Long value) {
            hex = Long.toString(value, 16);
        } else if (arg instanceof UnsignedLong value) {
            hex = value.toString(16);
        } else if (arg instanceof String text) {
            hex = HexFormat.of().formatHex(text.getBytes(StandardCharsets.UTF_8));
        } else if (arg instanceof CelByteString bytes) {
            hex = HexFormat.of().formatHex(bytes.toByteArray());
        } else {
            throw new LibraryFunctionException("only integers, byte buffers, and strings can be formatted as hex, "
                    + "was given " + CelValueTypes.nameOf(arg));
        }
        return upperCase ? hex.toUpperCase(Locale.ROOT) : hex;
    }

    private static boolean isAsciiDigit(char c) {
        return c >= '0' && c <= '9';
    }
}
