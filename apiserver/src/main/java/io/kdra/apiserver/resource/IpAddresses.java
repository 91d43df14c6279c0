package io.kdra.apiserver.resource;

import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Interface addresses in CIDR form ({@code 10.9.8.7/24}, {@code 2001:db8::1/64}) and their canonical spelling as Go
 * prints it: IPv4 dotted decimal (also for IPv4-mapped IPv6), IPv6 in RFC 5952 form.
 */
final class IpAddresses {

    private static final Pattern PREFIX = Pattern.compile("[0-9]{1,3}");
    private static final Pattern IPV4 = Pattern.compile("([0-9]{1,3})\\.([0-9]{1,3})\\.([0-9]{1,3})\\.([0-9]{1,3})");
    private static final Pattern HEX_GROUP = Pattern.compile("[0-9a-fA-F]{1,4}");

    private IpAddresses() {
    }

    /** @return the canonical form of an interface address, or empty when it does not parse */
    static Optional<String> canonicalInterfaceAddress(String value) {
        int slash = value.indexOf('/');
        if (slash < 0 || !PREFIX.matcher(value.substring(slash + 1)).matches()) {
            return Optional.empty();
        }
        String address = value.substring(0, slash);
        int prefix = Integer.parseInt(value.substring(slash + 1));
        int[] ipv4 = parseIpv4(address);
        if (ipv4 != null) {
            return prefix > 32 ? Optional.empty() : Optional.of(formatIpv4(ipv4) + "/" + prefix);
        }
        int[] groups = parseIpv6(address);
        if (groups == null || prefix > 128) {
            return Optional.empty();
        }
        if (isIpv4Mapped(groups)) {
            int[] mapped = {groups[6] >> 8, groups[6] & 0xFF, groups[7] >> 8, groups[7] & 0xFF};
            return Optional.of(formatIpv4(mapped) + "/" + (prefix > 32 ? prefix - 96 : prefix));
        }
        return Optional.of(formatIpv6(groups) + "/" + prefix);
    }

    private static int[] parseIpv4(String address) {
        var matcher = IPV4.matcher(address);
        if (!matcher.matches()) {
            return null;
        }
        int[] octets = new int[4];
        for (int i = 0; i < 4; i++) {
            octets[i] = Integer.parseInt(matcher.group(i + 1));
            if (octets[i] > 255) {
                return null;
            }
        }
        return octets;
    }

    private static int[] parseIpv6(String address) {
        int doubleColon = address.indexOf("::");
        if (doubleColon >= 0 && address.indexOf("::", doubleColon + 1) >= 0) {
            return null;
        }
        String head = doubleColon >= 0 ? address.substring(0, doubleColon) : address;
        String tail = doubleColon >= 0 ? address.substring(doubleColon + 2) : "";
        int[] headGroups = parseGroups(head, doubleColon < 0);
        int[] tailGroups = parseGroups(tail, true);
        if (headGroups == null || tailGroups == null) {
            return null;
        }
        int total = headGroups.length + tailGroups.length;
        if (doubleColon < 0 ? total != 8 : total > 7) {
            return null;
        }
        int[] groups = new int[8];
        System.arraycopy(headGroups, 0, groups, 0, headGroups.length);
        System.arraycopy(tailGroups, 0, groups, 8 - tailGroups.length, tailGroups.length);
        return groups;
    }

    /** Colon-separated hex groups; the last may be an embedded IPv4 address when {@code last} is set. */
    private static int[] parseGroups(String text, boolean last) {
        if (text.isEmpty()) {
            return new int[0];
        }
        String[] parts = text.split(":", -1);
        int[] ipv4 = last ? parseIpv4(parts[parts.length - 1]) : null;
        int hexCount = ipv4 == null ? parts.length : parts.length - 1;
        int[] groups = new int[hexCount + (ipv4 == null ? 0 : 2)];
        for (int i = 0; i < hexCount; i++) {
            if (!HEX_GROUP.matcher(parts[i]).matches()) {
                return null;
            }
            groups[i] = Integer.parseInt(parts[i], 16);
        }
        if (ipv4 != null) {
            groups[hexCount] = ipv4[0] << 8 | ipv4[1];
            groups[hexCount + 1] = ipv4[2] << 8 | ipv4[3];
        }
        return groups;
    }

    private static boolean isIpv4Mapped(int[] groups) {
        for (int i = 0; i < 5; i++) {
            if (groups[i] != 0) {
                return false;
            }
        }
        return groups[5] == 0xFFFF;
    }

    private static String formatIpv4(int[] octets) {
        return octets[0] + "." + octets[1] + "." + octets[2] + "." + octets[3];
    }

    /** RFC 5952: lower-case hex, the first longest run of two or more zero groups written as "::". */
    private static String formatIpv6(int[] groups) {
        int bestStart = -1;
        int bestLength = 1;
        for (int i = 0; i < 8; i++) {
            int length = 0;
            while (i + length < 8 && groups[i + length] == 0) {
                length++;
            }
            if (length > bestLength) {
                bestStart = i;
                bestLength = length;
            }
        }
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            if (i == bestStart) {
                text.append("::");
                i += bestLength - 1;
                continue;
            }
            if (text.length() > 0 && text.charAt(text.length() - 1) != ':') {
                text.append(':');
            }
            text.append(Integer.toHexString(groups[i]));
        }
        return text.toString();
    }
}
