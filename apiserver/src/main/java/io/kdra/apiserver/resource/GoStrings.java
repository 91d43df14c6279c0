package io.kdra.apiserver.resource;

import java.nio.charset.StandardCharsets;

/** Go string behaviour that shows in kube-apiserver messages: byte lengths and {@code strconv.Quote}. */
final class GoStrings {

    private GoStrings() {
    }

    /** Go's {@code len(s)}: limits in the API count UTF-8 bytes, not characters. */
    static int byteLength(String value) {
        return value.getBytes(StandardCharsets.UTF_8).length;
    }

    static String quote(String value) {
        StringBuilder quoted = new StringBuilder(value.length() + 2).append('"');
        value.codePoints().forEach(c -> {
            switch (c) {
                case '"' -> quoted.append("\\\"");
                case '\\' -> quoted.append("\\\\");
                case 0x07 -> quoted.append("\\a");
                case '\b' -> quoted.append("\\b");
                case '\f' -> quoted.append("\\f");
                case '\n' -> quoted.append("\\n");
                case '\r' -> quoted.append("\\r");
                case '\t' -> quoted.append("\\t");
                case 0x0B -> quoted.append("\\v");
                default -> {
                    if (c < 0x20 || c == 0x7F) {
                        quoted.append(String.format("\\x%02x", c));
                    } else if (Character.isISOControl(c) || !Character.isDefined(c)) {
                        quoted.append(c > 0xFFFF ? String.format("\\U%08x", c) : String.format("\\u%04x", c));
                    } else {
                        quoted.appendCodePoint(c);
                    }
                }
            }
        });
        return quoted.append('"').toString();
    }
}
