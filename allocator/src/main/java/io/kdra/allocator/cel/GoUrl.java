package io.kdra.allocator.cel;

import io.kdra.kube.net.IpAddress;
import io.kdra.kube.GoQuote;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * A URL as Go's {@code net/url.URL}: {@link #parse} and {@link #parseRequestUri} with Go's rules and error texts, and
 * the accessors Kubernetes' URL library exposes. Go works on bytes; here the text is held as one char per UTF-8 byte
 * ({@link #bytes}) and turned back into a string ({@link #text}) when handed out. Equal when {@link #toString()} is,
 * as Kubernetes compares URLs.
 */
final class GoUrl {

    private enum Encoding { PATH, HOST, ZONE, USER_PASSWORD, QUERY_COMPONENT, FRAGMENT }

    private static final int MAX_QUERY_PARAMETERS = 10_000;
    private static final HexFormat UPPER_CASE_HEX = HexFormat.of().withUpperCase();

    /** Go's {@code url.Error} for operation {@code parse}. */
    static final class ParseException extends IllegalArgumentException {
        ParseException(String url, String reason) {
            super("parse " + GoQuote.quote(text(url)) + ": " + reason);
        }
    }

    private static final class Invalid extends Exception {
        Invalid(String reason) {
            super(reason, null, false, false);
        }
    }

    private String scheme = "";
    private String opaque = "";
    private String username;
    private String password;
    private String host = "";
    private String path = "";
    private String rawPath = "";
    private boolean forceQuery;
    private String rawQuery = "";
    private String fragment = "";
    private String rawFragment = "";

    private GoUrl() {
    }

    /** Go's {@code url.ParseRequestURI}: an absolute URI or an absolute path, no fragment split off. */
    static GoUrl parseRequestUri(String raw) {
        String url = bytes(raw);
        try {
            return parse(url, true);
        } catch (Invalid invalid) {
            throw new ParseException(url, invalid.getMessage());
        }
    }

    /** Go's {@code url.Parse}: any URL reference; {@code #fragment} is split off first. */
    static GoUrl parse(String raw) {
        String url = bytes(raw);
        int hash = url.indexOf('#');
        String beforeFragment = hash < 0 ? url : url.substring(0, hash);
        GoUrl parsed;
        try {
            parsed = parse(beforeFragment, false);
        } catch (Invalid invalid) {
            throw new ParseException(beforeFragment, invalid.getMessage());
        }
        if (hash >= 0 && hash + 1 < url.length()) {
            try {
                String encoded = url.substring(hash + 1);
                parsed.fragment = unescape(encoded, Encoding.FRAGMENT);
                parsed.rawFragment = rawUnlessDefault(encoded, parsed.fragment, Encoding.FRAGMENT);
            } catch (Invalid invalid) {
                throw new ParseException(url, invalid.getMessage());
            }
        }
        return parsed;
    }

    private static GoUrl parse(String raw, boolean viaRequest) throws Invalid {
        for (int i = 0; i < raw.length(); i++) {
            if (raw.charAt(i) < 0x20 || raw.charAt(i) == 0x7f) {
                throw new Invalid("net/url: invalid control character in URL");
            }
        }
        if (raw.isEmpty() && viaRequest) {
            throw new Invalid("empty url");
        }
        GoUrl url = new GoUrl();
        if (raw.equals("*")) {
            url.path = "*";
            return url;
        }
        String rest = raw;
        int schemeEnd = schemeEnd(raw);
        if (schemeEnd >= 0) {
            url.scheme = raw.substring(0, schemeEnd).toLowerCase(Locale.ROOT);
            rest = raw.substring(schemeEnd + 1);
        }
        if (rest.endsWith("?") && rest.indexOf('?') == rest.length() - 1) {
            url.forceQuery = true;
            rest = rest.substring(0, rest.length() - 1);
        } else {
            int question = rest.indexOf('?');
            if (question >= 0) {
                url.rawQuery = rest.substring(question + 1);
                rest = rest.substring(0, question);
            }
        }
        if (!rest.startsWith("/")) {
            if (!url.scheme.isEmpty()) {
                url.opaque = rest;
                return url;
            }
            if (viaRequest) {
                throw new Invalid("invalid URI for request");
            }
            int slash = rest.indexOf('/');
            if ((slash < 0 ? rest : rest.substring(0, slash)).contains(":")) {
                throw new Invalid("first path segment in URL cannot contain colon");
            }
        }
        if ((!url.scheme.isEmpty() || !viaRequest && !rest.startsWith("///")) && rest.startsWith("//")) {
            String authority = rest.substring(2);
            rest = "";
            int slash = authority.indexOf('/');
            if (slash >= 0) {
                rest = authority.substring(slash);
                authority = authority.substring(0, slash);
            }
            url.parseAuthority(authority);
        }
        url.path = unescape(rest, Encoding.PATH);
        url.rawPath = rawUnlessDefault(rest, url.path, Encoding.PATH);
        return url;
    }

    /** The index of the scheme's colon, or -1 when the text does not start with a scheme. */
    private static int schemeEnd(String raw) throws Invalid {
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
                continue;
            }
            if (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.') {
                if (i == 0) {
                    return -1;
                }
                continue;
            }
            if (c == ':') {
                if (i == 0) {
                    throw new Invalid("missing protocol scheme");
                }
                return i;
            }
            return -1;
        }
        return -1;
    }

    private void parseAuthority(String authority) throws Invalid {
        int at = authority.lastIndexOf('@');
        host = parseHost(at < 0 ? authority : authority.substring(at + 1));
        if (at < 0) {
            return;
        }
        String userinfo = authority.substring(0, at);
        for (int i = 0; i < userinfo.length(); i++) {
            char c = userinfo.charAt(i);
            boolean allowed = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
                    || "-._:~!$&'()*+,;=%@".indexOf(c) >= 0;
            if (!allowed) {
                throw new Invalid("net/url: invalid userinfo");
            }
        }
        int colon = userinfo.indexOf(':');
        username = unescape(colon < 0 ? userinfo : userinfo.substring(0, colon), Encoding.USER_PASSWORD);
        if (colon >= 0) {
            password = unescape(userinfo.substring(colon + 1), Encoding.USER_PASSWORD);
        }
    }

    /**
     * Go's {@code parseHost} with the checks of Go 1.24.8/1.25.2 (CVE-2025-47912): brackets only around a whole IPv6
     * literal at the start of the host.
     */
    private static String parseHost(String host) throws Invalid {
        int open = host.lastIndexOf('[');
        if (open > 0) {
            throw new Invalid("invalid IP-literal");
        }
        if (open == 0) {
            int close = host.lastIndexOf(']');
            if (close < 0) {
                throw new Invalid("missing ']' in host");
            }
            String colonPort = host.substring(close + 1);
            if (!isValidOptionalPort(colonPort)) {
                throw new Invalid("invalid port " + GoQuote.quote(text(colonPort)) + " after host");
            }
            String literal = host.substring(1, close);
            int zone = literal.indexOf("%25");
            String address = zone < 0 ? unescape(literal, Encoding.HOST)
                    : unescape(literal.substring(0, zone), Encoding.HOST)
                            + unescape(literal.substring(zone), Encoding.ZONE);
            IpAddress.Parsed parsed;
            try {
                parsed = IpAddress.parse(text(address));
            } catch (IllegalArgumentException notAnAddress) {
                throw new Invalid("invalid host: " + notAnAddress.getMessage());
            }
            if (parsed.address().ipv4()) {
                throw new Invalid("invalid IP-literal");
            }
            return "[" + address + "]" + colonPort;
        }
        int colon = host.lastIndexOf(':');
        if (colon >= 0 && !isValidOptionalPort(host.substring(colon))) {
            throw new Invalid("invalid port " + GoQuote.quote(text(host.substring(colon))) + " after host");
        }
        return unescape(host, Encoding.HOST);
    }

    private static boolean isValidOptionalPort(String colonPort) {
        if (colonPort.isEmpty()) {
            return true;
        }
        return colonPort.charAt(0) == ':' && colonPort.substring(1).chars().allMatch(c -> c >= '0' && c <= '9');
    }

    private static boolean shouldEscape(char c, Encoding mode) {
        if (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
            return false;
        }
        if ((mode == Encoding.HOST || mode == Encoding.ZONE) && "!$&'()*+,;=:[]<>\"".indexOf(c) >= 0) {
            return false;
        }
        if ("-_.~".indexOf(c) >= 0) {
            return false;
        }
        if ("$&+,/:;=?@".indexOf(c) >= 0) {
            return switch (mode) {
                case PATH -> c == '?';
                case USER_PASSWORD -> c == '@' || c == '/' || c == '?' || c == ':';
                case QUERY_COMPONENT -> true;
                case FRAGMENT -> false;
                default -> true;
            };
        }
        if (mode == Encoding.FRAGMENT && "!()*".indexOf(c) >= 0) {
            return false;
        }
        return true;
    }

    private static String unescape(String s, Encoding mode) throws Invalid {
        StringBuilder out = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '%') {
                if (i + 2 >= s.length() || !isHex(s.charAt(i + 1)) || !isHex(s.charAt(i + 2))) {
                    throw escapeError(s.substring(i, Math.min(s.length(), i + 3)));
                }
                int value = Character.digit(s.charAt(i + 1), 16) << 4 | Character.digit(s.charAt(i + 2), 16);
                String escaped = s.substring(i, i + 3);
                if (mode == Encoding.HOST && value < 0x80 && !escaped.equals("%25")) {
                    throw escapeError(escaped);
                }
                if (mode == Encoding.ZONE && !escaped.equals("%25") && value != ' '
                        && shouldEscape((char) value, Encoding.HOST)) {
                    throw escapeError(escaped);
                }
                out.append((char) value);
                i += 2;
            } else if (c == '+') {
                out.append(mode == Encoding.QUERY_COMPONENT ? ' ' : '+');
            } else {
                if ((mode == Encoding.HOST || mode == Encoding.ZONE) && c < 0x80 && shouldEscape(c, mode)) {
                    throw new Invalid("invalid character " + GoQuote.quote(String.valueOf(c)) + " in host name");
                }
                out.append(c);
            }
        }
        return out.toString();
    }

    private static Invalid escapeError(String escape) {
        return new Invalid("invalid URL escape " + GoQuote.quote(text(escape)));
    }

    private static boolean isHex(char c) {
        return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F';
    }

    private static String escape(String s, Encoding mode) {
        StringBuilder out = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == ' ' && mode == Encoding.QUERY_COMPONENT) {
                out.append('+');
            } else if (shouldEscape(c, mode)) {
                out.append('%').append(UPPER_CASE_HEX.toHexDigits((byte) c));
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    /** Go's {@code validEncoded}: nothing in {@code s} would need escaping. */
    private static boolean isValidEncoded(String s, Encoding mode) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if ("!$&'()*+,;=:@[]%".indexOf(c) < 0 && shouldEscape(c, mode)) {
                return false;
            }
        }
        return true;
    }

    /** The UTF-8 bytes of {@code text}, one char each. */
    private static String bytes(String text) {
        return new String(text.getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1);
    }

    /** The string whose UTF-8 bytes {@code bytes} holds one per char. */
    private static String text(String bytes) {
        return new String(bytes.getBytes(StandardCharsets.ISO_8859_1), StandardCharsets.UTF_8);
    }

    String scheme() {
        return text(scheme);
    }

    String host() {
        return text(host);
    }

    /** Go's {@code Hostname}: the host without a valid port, IPv6 brackets removed. */
    String hostname() {
        String name = host;
        int colon = name.lastIndexOf(':');
        if (colon >= 0 && isValidOptionalPort(name.substring(colon))) {
            name = name.substring(0, colon);
        }
        if (name.startsWith("[") && name.endsWith("]")) {
            name = name.substring(1, name.length() - 1);
        }
        return text(name);
    }

    /** Go's {@code Port}: digits after the last colon when they form a valid port, else empty. */
    String port() {
        int colon = host.lastIndexOf(':');
        return colon >= 0 && isValidOptionalPort(host.substring(colon)) ? host.substring(colon + 1) : "";
    }

    /** Go's {@code EscapedPath}: the original escaping when it is a valid one, else Go's own. */
    String escapedPath() {
        return text(escapedPathBytes());
    }

    private String escapedPathBytes() {
        String original = originalEscaping(rawPath, path, Encoding.PATH);
        if (original != null) {
            return original;
        }
        return path.equals("*") ? "*" : escape(path, Encoding.PATH);
    }

    private String escapedFragment() {
        String original = originalEscaping(rawFragment, fragment, Encoding.FRAGMENT);
        return original != null ? original : escape(fragment, Encoding.FRAGMENT);
    }

    /** Go's {@code setPath}/{@code setFragment}: the raw text is kept only when Go's own escaping would differ. */
    private static String rawUnlessDefault(String raw, String decoded, Encoding mode) {
        return escape(decoded, mode).equals(raw) ? "" : raw;
    }

    /**
     * Go's {@code EscapedPath}/{@code EscapedFragment} preference: the kept raw text when it is a valid escaping of
     * {@code decoded}, else null.
     */
    private static String originalEscaping(String raw, String decoded, Encoding mode) {
        if (raw.isEmpty() || !isValidEncoded(raw, mode)) {
            return null;
        }
        try {
            return unescape(raw, mode).equals(decoded) ? raw : null;
        } catch (Invalid notAnEscaping) {
            return null;
        }
    }

    /**
     * Go's {@code Query}: {@code &}-separated {@code key=value} pairs, unescaped ({@code +} is a space); pairs with a
     * semicolon or a bad escape are dropped, and a query of more than 10,000 parameters yields none (as Go 1.25.6
     * does).
     */
    Map<String, List<String>> query() {
        Map<String, List<String>> values = new LinkedHashMap<>();
        if (rawQuery.chars().filter(c -> c == '&').count() >= MAX_QUERY_PARAMETERS) {
            return values;
        }
        for (String pair : rawQuery.split("&", -1)) {
            if (pair.isEmpty() || pair.contains(";")) {
                continue;
            }
            int equals = pair.indexOf('=');
            try {
                String key = unescape(equals < 0 ? pair : pair.substring(0, equals), Encoding.QUERY_COMPONENT);
                String value = equals < 0 ? "" : unescape(pair.substring(equals + 1), Encoding.QUERY_COMPONENT);
                values.computeIfAbsent(text(key), k -> new ArrayList<>()).add(text(value));
            } catch (Invalid badEscape) {
                // Go's Query silently discards malformed pairs
            }
        }
        return values;
    }

    /** Go's {@code URL.String}. */
    @Override
    public String toString() {
        StringBuilder out = new StringBuilder();
        if (!scheme.isEmpty()) {
            out.append(scheme).append(':');
        }
        if (!opaque.isEmpty()) {
            out.append(opaque);
        } else {
            if (!scheme.isEmpty() || !host.isEmpty() || username != null) {
                if (!host.isEmpty() || !path.isEmpty() || username != null) {
                    out.append("//");
                }
                if (username != null) {
                    out.append(escape(username, Encoding.USER_PASSWORD));
                    if (password != null) {
                        out.append(':').append(escape(password, Encoding.USER_PASSWORD));
                    }
                    out.append('@');
                }
                out.append(escape(host, Encoding.HOST));
            }
            String escapedPath = escapedPathBytes();
            if (!escapedPath.isEmpty() && escapedPath.charAt(0) != '/' && !host.isEmpty()) {
                out.append('/');
            }
            if (out.length() == 0) {
                int slash = escapedPath.indexOf('/');
                if ((slash < 0 ? escapedPath : escapedPath.substring(0, slash)).contains(":")) {
                    out.append("./");
                }
            }
            out.append(escapedPath);
        }
        if (forceQuery || !rawQuery.isEmpty()) {
            out.append('?').append(rawQuery);
        }
        if (!fragment.isEmpty()) {
            out.append('#').append(escapedFragment());
        }
        return text(out.toString());
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof GoUrl url && url.toString().equals(toString());
    }

    @Override
    public int hashCode() {
        return Objects.hash(toString());
    }
}
