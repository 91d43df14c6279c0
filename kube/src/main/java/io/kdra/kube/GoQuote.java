package io.kdra.kube;

import java.util.Locale;

/** Go's {@code strconv.Quote}. */
public final class GoQuote {

    private GoQuote() {
    }

    public static String quote(String text) {
        StringBuilder out = new StringBuilder("\"");
        text.codePoints().forEach(codePoint -> appendEscaped(out, codePoint));
        return out.append('"').toString();
    }

    private static void appendEscaped(StringBuilder out, int codePoint) {
        switch (codePoint) {
            case 0x07 -> out.append("\\a");
            case '\b' -> out.append("\\b");
            case '\f' -> out.append("\\f");
            case '\n' -> out.append("\\n");
            case '\r' -> out.append("\\r");
            case '\t' -> out.append("\\t");
            case 0x0b -> out.append("\\v");
            case '\\' -> out.append("\\\\");
            case '"' -> out.append("\\\"");
            default -> {
                if (isPrintable(codePoint)) {
                    out.appendCodePoint(codePoint);
                } else if (codePoint < ' ' || codePoint == 0x7f) {
                    out.append(String.format(Locale.ROOT, "\\x%02x", codePoint));
                } else if (Character.isSurrogate((char) codePoint)) {
                    out.append("\\ufffd");
                } else if (codePoint < 0x10000) {
                    out.append(String.format(Locale.ROOT, "\\u%04x", codePoint));
                } else {
                    out.append(String.format(Locale.ROOT, "\\U%08x", codePoint));
                }
            }
        }
    }

    /** Go's {@code unicode.IsPrint}: letters, marks, numbers, punctuation, symbols and the ASCII space. */
    private static boolean isPrintable(int codePoint) {
        if (codePoint == ' ') {
            return true;
        }
        return switch (Character.getType(codePoint)) {
            case Character.UNASSIGNED, Character.CONTROL, Character.FORMAT, Character.SURROGATE,
                    Character.PRIVATE_USE, Character.SPACE_SEPARATOR, Character.LINE_SEPARATOR,
                    Character.PARAGRAPH_SEPARATOR -> false;
            default -> true;
        };
    }
}
