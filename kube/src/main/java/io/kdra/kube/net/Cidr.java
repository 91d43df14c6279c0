package io.kdra.kube.net;

import io.kdra.kube.GoQuote;
import java.util.Optional;

/**
 * An IP prefix as Go's {@code net/netip.Prefix}: an address and a prefix length; host bits are kept (use
 * {@link #masked()}), so {@code 10.0.0.1/8} and {@code 10.0.0.0/8} differ.
 */
public record Cidr(IpAddress address, int bits) {

    /** Go's {@code netip.ParsePrefix}; a failure throws {@link IllegalArgumentException} with Go's message. */
    public static Cidr parse(String text) {
        int slash = text.lastIndexOf('/');
        if (slash < 0) {
            throw error(text, "no '/'");
        }
        IpAddress.Parsed parsed;
        try {
            parsed = IpAddress.parse(text.substring(0, slash));
        } catch (IllegalArgumentException invalidAddress) {
            throw error(text, invalidAddress.getMessage());
        }
        if (!parsed.zone().isEmpty()) {
            throw error(text, "IPv6 zones cannot be present in a prefix");
        }
        String bitsText = text.substring(slash + 1);
        String badBits = "bad bits after slash: " + GoQuote.quote(bitsText);
        boolean digitsOnly = !bitsText.isEmpty() && bitsText.chars().allMatch(c -> c >= '0' && c <= '9');
        if (!digitsOnly || bitsText.length() > 1 && bitsText.charAt(0) == '0') {
            throw error(text, badBits);
        }
        long bits;
        try {
            bits = Long.parseLong(bitsText);
        } catch (NumberFormatException beyond64Bits) {
            throw error(text, badBits);
        }
        if (bits > parsed.address().bitLength()) {
            throw error(text, "prefix length out of range");
        }
        return new Cidr(parsed.address(), (int) bits);
    }

    /**
     * The canonical spelling of an interface address in CIDR form ({@code 10.9.8.7/24}, {@code 2001:db8::1/64}), as
     * Kubernetes' {@code IsValidInterfaceAddress} builds it: the address parsed sloppily (leading zeros allowed) and
     * printed as Go's {@code net.IP} prints it (IPv4 dotted, also for an IPv4-mapped IPv6 address, whose prefix length
     * then counts IPv4 bits; IPv6 in RFC 5952 form), host bits kept.
     *
     * @return the canonical form, or empty when the text is no address in CIDR form
     */
    public static Optional<String> canonicalInterfaceAddress(String text) {
        int slash = text.indexOf('/');
        if (slash < 0) {
            return Optional.empty();
        }
        Optional<IpAddress> parsed = IpAddress.parseSloppy(text.substring(0, slash));
        String bitsText = text.substring(slash + 1);
        // Go's dtoi: decimal digits, leading zeros allowed
        if (parsed.isEmpty() || bitsText.isEmpty() || bitsText.length() > 9
                || !bitsText.chars().allMatch(c -> c >= '0' && c <= '9')) {
            return Optional.empty();
        }
        IpAddress address = parsed.get();
        int bits = Integer.parseInt(bitsText);
        if (bits > address.bitLength()) {
            return Optional.empty();
        }
        if (address.isIpv4MappedIpv6()) {
            IpAddress ipv4 = new IpAddress(true, 0, address.low() & 0xffffffffL);
            return Optional.of(ipv4 + "/" + (bits > 32 ? bits - 96 : bits));
        }
        return Optional.of(address + "/" + bits);
    }

    private static IllegalArgumentException error(String in, String message) {
        return new IllegalArgumentException("netip.ParsePrefix(" + GoQuote.quote(in) + "): " + message);
    }

    public boolean contains(IpAddress ip) {
        return ip.ipv4() == address.ipv4() && ip.masked(bits).equals(address.masked(bits));
    }

    /** Kubernetes' rule (fixed in 1.33, kubernetes#130450): same network at this prefix length, and no shorter. */
    public boolean contains(Cidr other) {
        return other.address.ipv4() == address.ipv4() && bits <= other.bits
                && other.address.masked(bits).equals(address.masked(bits));
    }

    public Cidr masked() {
        return new Cidr(address.masked(bits), bits);
    }

    @Override
    public String toString() {
        return address + "/" + bits;
    }
}
