package io.kdra.allocator.cel;

/**
 * An IP prefix as Go's {@code net/netip.Prefix}: an address and a prefix length; host bits are kept (use
 * {@link #masked()}), so {@code 10.0.0.1/8} and {@code 10.0.0.0/8} differ.
 */
record Cidr(IpAddress address, int bits) {

    /** Go's {@code netip.ParsePrefix}; a failure throws {@link IllegalArgumentException} with Go's message. */
    static Cidr parse(String text) {
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

    private static IllegalArgumentException error(String in, String message) {
        return new IllegalArgumentException("netip.ParsePrefix(" + GoQuote.quote(in) + "): " + message);
    }

    boolean contains(IpAddress ip) {
        return ip.ipv4() == address.ipv4() && ip.masked(bits).equals(address.masked(bits));
    }

    /** Kubernetes' rule (fixed in 1.33, kubernetes#130450): same network at this prefix length, and no shorter. */
    boolean contains(Cidr other) {
        return other.address.ipv4() == address.ipv4() && bits <= other.bits
                && other.address.masked(bits).equals(address.masked(bits));
    }

    Cidr masked() {
        return new Cidr(address.masked(bits), bits);
    }

    @Override
    public String toString() {
        return address + "/" + bits;
    }
}
