package io.kdra.plugin.cdi;

/**
 * A fully qualified CDI device ID, {@code <vendor>/<class>=<name>}, as container runtimes resolve it.
 *
 * <p>The syntax rules and error messages follow the CDI reference parser: vendor and class start with a letter, end
 * with a letter or digit and contain only letters, digits, {@code _}, {@code -} and {@code .}; the name starts and
 * ends with a letter or digit and may also contain {@code :}.
 *
 * @param vendor the vendor part of the kind, for example {@code test.example.com}
 * @param deviceClass the class part of the kind, for example {@code test}
 * @param name the device name within the kind
 */
public record CdiDeviceId(String vendor, String deviceClass, String name) {

    /** Validates all three parts; the error names the offending ID. */
    public CdiDeviceId {
        String vendorProblem = validateVendorOrClass(vendor);
        String classProblem = validateVendorOrClass(deviceClass);
        String nameProblem = validateName(name);
        // the message is only built for an invalid ID: the kubelet-plugin library checks every prepared device's IDs
        if (vendorProblem != null || classProblem != null || nameProblem != null) {
            String subject = "invalid device \"" + vendor + "/" + deviceClass + "=" + name + "\": ";
            check(subject, "vendor. ", vendorProblem);
            check(subject, "class. ", classProblem);
            check(subject, "", nameProblem);
        }
    }

    /**
     * Parses {@code <vendor>/<class>=<name>}: split on the first {@code =}, then the qualifier on the first {@code /}.
     *
     * @throws IllegalArgumentException naming the ID and what is missing or malformed
     */
    public static CdiDeviceId parse(String id) {
        int equals = id.indexOf('=');
        String qualifier = equals > 0 ? id.substring(0, equals) : "";
        String name = equals > 0 ? id.substring(equals + 1) : "";
        int slash = qualifier.indexOf('/');
        String vendor = slash > 0 ? qualifier.substring(0, slash) : "";
        String deviceClass = slash > 0 ? qualifier.substring(slash + 1) : "";
        if (id.startsWith("/") || name.isEmpty() || vendor.isEmpty()) {
            throw new IllegalArgumentException("unqualified device \"" + id + "\", missing vendor");
        }
        if (deviceClass.isEmpty()) {
            throw new IllegalArgumentException("unqualified device \"" + id + "\", missing class");
        }
        return new CdiDeviceId(vendor, deviceClass, name);
    }

    /**
     * Checks a CDI spec {@code kind}, {@code <vendor>/<class>}.
     *
     * @throws IllegalArgumentException naming the kind and the problem
     */
    static void validateKind(String kind) {
        int slash = kind == null ? -1 : kind.indexOf('/');
        if (slash <= 0 || slash == kind.length() - 1) {
            throw new IllegalArgumentException("invalid CDI kind \"" + kind + "\": must be <vendor>/<class>");
        }
        String subject = "invalid CDI kind \"" + kind + "\": ";
        check(subject, "vendor. ", validateVendorOrClass(kind.substring(0, slash)));
        check(subject, "class. ", validateVendorOrClass(kind.substring(slash + 1)));
    }

    /**
     * Checks a CDI device name (the part after {@code =}).
     *
     * @throws IllegalArgumentException naming the device and the problem
     */
    static void validateDeviceName(String name) {
        String problem = validateName(name);
        if (problem != null) {
            throw new IllegalArgumentException(problem);
        }
    }

    /** The qualified form, {@code <vendor>/<class>=<name>}. */
    @Override
    public String toString() {
        return vendor + "/" + deviceClass + "=" + name;
    }

    private static void check(String subject, String part, String problem) {
        if (problem != null) {
            throw new IllegalArgumentException(subject + (part.isEmpty() ? "" : "invalid " + part) + problem);
        }
    }

    private static String validateVendorOrClass(String value) {
        if (value == null || value.isEmpty()) {
            return "empty name";
        }
        if (!isLetter(value.charAt(0))) {
            return quote(value) + ", should start with letter";
        }
        for (int i = 1; i < value.length() - 1; i++) {
            char c = value.charAt(i);
            if (!isAlphanumeric(c) && c != '_' && c != '-' && c != '.') {
                return "invalid character '" + c + "' in name " + quote(value);
            }
        }
        if (!isAlphanumeric(value.charAt(value.length() - 1))) {
            return quote(value) + ", should end with a letter or digit";
        }
        return null;
    }

    private static String validateName(String name) {
        if (name == null || name.isEmpty()) {
            return "invalid (empty) device name";
        }
        if (!isAlphanumeric(name.charAt(0))) {
            return "invalid name " + quote(name) + ", should start with a letter or digit";
        }
        for (int i = 1; i < name.length() - 1; i++) {
            char c = name.charAt(i);
            if (!isAlphanumeric(c) && c != '_' && c != '-' && c != '.' && c != ':') {
                return "invalid character '" + c + "' in device name " + quote(name);
            }
        }
        if (!isAlphanumeric(name.charAt(name.length() - 1))) {
            return "invalid name " + quote(name) + ", should end with a letter or digit";
        }
        return null;
    }

    private static String quote(String value) {
        return "\"" + value + "\"";
    }

    private static boolean isLetter(char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
    }

    private static boolean isAlphanumeric(char c) {
        return isLetter(c) || (c >= '0' && c <= '9');
    }
}
