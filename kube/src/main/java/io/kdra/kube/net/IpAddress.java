package io.kdra.kube.net;

import io.kdra.kube.GoQuote;
import java.util.Optional;

/**
 * An IPv4 or IPv6 address as Go's {@code net/netip.Addr} (without zones): parsing of literals only (never a name
 * lookup), Go's error texts, canonical printing (RFC 5952 for IPv6) and its classification methods. An IPv4 address
 * keeps its 32 bits in {@code low}; an IPv6 address its 128 bits in {@code high} and {@code low}.
 */
public record IpAddress(boolean ipv4, long high, long low) {

    /** A parsed literal and its IPv6 zone ({@code ""} when there is none). */
    public record Parsed(IpAddress address, String zone) {
    }

    /** Go's {@code netip.ParseAddr}; a failure throws {@link IllegalArgumentException} with Go's message. */
    public static Parsed parse(String text) {
        return parse(text, false);
    }

    /**
     * Kubernetes' {@code netutils.ParseIPSloppy}, the parser of Go before 1.17 that API validation still uses: IPv4
     * fields may have leading zeros (read as decimal), and zones are not allowed.
     *
     * @return the address, or empty when the text is not one
     */
    public static Optional<IpAddress> parseSloppy(String text) {
        if (text.indexOf('%') >= 0) {
            return Optional.empty();
        }
        try {
            return Optional.of(parse(text, true).address());
        } catch (IllegalArgumentException notAnAddress) {
            return Optional.empty();
        }
    }

    private static Parsed parse(String text, boolean sloppy) {
        for (int i = 0; i < text.length(); i++) {
            switch (text.charAt(i)) {
                case '.':
                    return new Parsed(new IpAddress(true, 0, parseIpv4(text, 0, text.length(), sloppy)), "");
                case ':':
                    return parseIpv6(text, sloppy);
                case '%':
                    throw error(text, "missing IPv6 address", "");
                default:
                    break;
            }
        }
        throw error(text, "unable to parse IP", "");
    }

    private static long parseIpv4(String in, int start, int end, boolean sloppy) {
        String s = in.substring(start, end);
        long address = 0;
        int value = 0;
        int fields = 0;
        int digits = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c >= '0' && c <= '9') {
                if (digits == 1 && value == 0 && !sloppy) {
                    throw error(in, "IPv4 field has octet with leading zero", "");
                }
                value = value * 10 + (c - '0');
                digits++;
                if (value > 255) {
                    throw error(in, "IPv4 field has value >255", "");
                }
            } else if (c == '.') {
                if (i == 0 || i == s.length() - 1 || s.charAt(i - 1) == '.') {
                    throw error(in, "IPv4 field must have at least one digit", s.substring(i));
                }
                if (fields == 3) {
                    throw error(in, "IPv4 address too long", "");
                }
                address = address << 8 | value;
                fields++;
                value = 0;
                digits = 0;
            } else {
                throw error(in, "unexpected character", s.substring(i));
            }
        }
        if (fields < 3) {
            throw error(in, "IPv4 address too short", "");
        }
        return address << 8 | value;
    }

    private static Parsed parseIpv6(String in, boolean sloppy) {
        String s = in;
        String zone = "";
        int percent = s.indexOf('%');
        if (percent >= 0) {
            zone = s.substring(percent + 1);
            s = s.substring(0, percent);
            if (zone.isEmpty()) {
                throw error(in, "zone must be a non-empty string", "");
            }
        }
        int end = s.length();
        int[] bytes = new int[16];
        int ellipsis = -1;
        if (s.length() >= 2 && s.charAt(0) == ':' && s.charAt(1) == ':') {
            ellipsis = 0;
            s = s.substring(2);
            if (s.isEmpty()) {
                return new Parsed(fromBytes(bytes), zone);
            }
        }
        int i = 0;
        while (i < 16) {
            int off = 0;
            int field = 0;
            for (; off < s.length(); off++) {
                int digit = Character.digit(s.charAt(off), 16);
                if (digit < 0 || s.charAt(off) > 'f') {
                    break;
                }
                field = (field << 4) + digit;
                if (off > 3) {
                    throw error(in, "each group must have 4 or less digits", s);
                }
            }
            if (off == 0) {
                throw error(in, "each colon-separated field must have at least one digit", s);
            }
            if (off < s.length() && s.charAt(off) == '.') {
                if (ellipsis < 0 && i != 12) {
                    throw error(in, "embedded IPv4 address must replace the final 2 fields of the address", s);
                }
                if (i + 4 > 16) {
                    throw error(in, "too many hex fields to fit an embedded IPv4 at the end of the address", s);
                }
                long ipv4 = parseIpv4(in, end - s.length(), end, sloppy);
                for (int b = 0; b < 4; b++) {
                    bytes[i + b] = (int) (ipv4 >>> (24 - 8 * b)) & 0xff;
                }
                s = "";
                i += 4;
                break;
            }
            bytes[i] = field >>> 8;
            bytes[i + 1] = field & 0xff;
            i += 2;
            s = s.substring(off);
            if (s.isEmpty()) {
                break;
            }
            if (s.charAt(0) != ':') {
                throw error(in, "unexpected character, want colon", s);
            } else if (s.length() == 1) {
                throw error(in, "colon must be followed by more characters", s);
            }
            s = s.substring(1);
            if (s.charAt(0) == ':') {
                if (ellipsis >= 0) {
                    throw error(in, "multiple :: in address", s);
                }
                ellipsis = i;
                s = s.substring(1);
                if (s.isEmpty()) {
                    break;
                }
            }
        }
        if (!s.isEmpty()) {
            throw error(in, "trailing garbage after address", s);
        }
        if (i < 16) {
            if (ellipsis < 0) {
                throw error(in, "address string too short", "");
            }
            int shift = 16 - i;
            for (int j = i - 1; j >= ellipsis; j--) {
                bytes[j + shift] = bytes[j];
            }
            for (int j = ellipsis + shift - 1; j >= ellipsis; j--) {
                bytes[j] = 0;
            }
        } else if (ellipsis >= 0) {
            throw error(in, "the :: must expand to at least one field of zeros", "");
        }
        return new Parsed(fromBytes(bytes), zone);
    }

    private static IpAddress fromBytes(int[] bytes) {
        long high = 0;
        long low = 0;
        for (int i = 0; i < 8; i++) {
            high = high << 8 | bytes[i];
            low = low << 8 | bytes[i + 8];
        }
        return new IpAddress(false, high, low);
    }

    private static IllegalArgumentException error(String in, String message, String at) {
        String text = "ParseAddr(" + GoQuote.quote(in) + "): " + message;
        return new IllegalArgumentException(at.isEmpty() ? text : text + " (at " + GoQuote.quote(at) + ")");
    }

    public int bitLength() {
        return ipv4 ? 32 : 128;
    }

    public long family() {
        return ipv4 ? 4 : 6;
    }

    public boolean isIpv4MappedIpv6() {
        return !ipv4 && high == 0 && low >>> 32 == 0xffffL;
    }

    public boolean isUnspecified() {
        return high == 0 && low == 0;
    }

    public boolean isLoopback() {
        return ipv4 ? low >>> 24 == 127 : high == 0 && low == 1;
    }

    public boolean isMulticast() {
        return ipv4 ? low >>> 28 == 0xe : high >>> 56 == 0xff;
    }

    /** 224.0.0.0/24, or ff02::/16 ignoring the flag bits, as Go decides. */
    public boolean isLinkLocalMulticast() {
        return ipv4 ? low >>> 8 == 0xe00000L : (high >>> 48 & 0xff0f) == 0xff02;
    }

    public boolean isLinkLocalUnicast() {
        return ipv4 ? low >>> 16 == 0xa9feL : (high >>> 48 & 0xffc0) == 0xfe80;
    }

    /** Go's rule: private IPv4 and unique-local IPv6 addresses count as global unicast too. */
    public boolean isGlobalUnicast() {
        if (ipv4 && low == 0xffffffffL) {
            return false;
        }
        return !isUnspecified() && !isLoopback() && !isMulticast() && !isLinkLocalUnicast();
    }

    /** The address with all bits after the first {@code bits} cleared. */
    public IpAddress masked(int bits) {
        if (ipv4) {
            long mask = bits == 0 ? 0 : 0xffffffffL << (32 - bits) & 0xffffffffL;
            return new IpAddress(true, 0, low & mask);
        }
        long highMask = bits >= 64 ? -1L : bits == 0 ? 0 : -1L << (64 - bits);
        long lowMask = bits <= 64 ? 0 : bits == 128 ? -1L : -1L << (128 - bits);
        return new IpAddress(false, high & highMask, low & lowMask);
    }

    /** Go's {@code Addr.String}: dotted quad, or RFC 5952 (lower case, longest run of two or more zeros as ::). */
    @Override
    public String toString() {
        if (ipv4) {
            return (low >>> 24) + "." + (low >>> 16 & 0xff) + "." + (low >>> 8 & 0xff) + "." + (low & 0xff);
        }
        if (isIpv4MappedIpv6()) {
            return "::ffff:" + new IpAddress(true, 0, low & 0xffffffffL);
        }
        int[] fields = new int[8];
        for (int i = 0; i < 4; i++) {
            fields[i] = (int) (high >>> (48 - 16 * i)) & 0xffff;
            fields[i + 4] = (int) (low >>> (48 - 16 * i)) & 0xffff;
        }
        int zeroStart = -1;
        int zeroLength = 0;
        for (int i = 0; i < 8; i++) {
            int j = i;
            while (j < 8 && fields[j] == 0) {
                j++;
            }
            if (j - i >= 2 && j - i > zeroLength) {
                zeroStart = i;
                zeroLength = j - i;
            }
            i = Math.max(i, j);
        }
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            if (i == zeroStart) {
                out.append("::");
                i += zeroLength - 1;
                continue;
            }
            if (i > 0 && out.charAt(out.length() - 1) != ':') {
                out.append(':');
            }
            out.append(Integer.toHexString(fields[i]));
        }
        return out.toString();
    }
}
