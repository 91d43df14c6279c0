package io.kdra.apiserver.resource;

import java.util.Locale;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;

/**
 * Checks of single fields that several kinds share, with the messages of kube-apiserver's core and resource
 * validation ({@code ValidateDNS1123Label}, {@code ValidateCSIDriverName}, {@code validatePoolName}, ...).
 */
final class FieldChecks {

    /** {@code DriverNameMaxLength}, the same as for CSI driver names. */
    static final int DRIVER_NAME_MAX_LENGTH = 63;
    /** {@code PoolNameMaxLength}. */
    static final int POOL_NAME_MAX_LENGTH = 253;
    /** {@code DeviceMaxIDLength}: the identifier part of a qualified name. */
    static final int DEVICE_MAX_ID_LENGTH = 32;
    /** {@code DeviceMaxDomainLength}: the domain part of a qualified name. */
    static final int DEVICE_MAX_DOMAIN_LENGTH = 63;

    private static final Pattern UUID_HEX = Pattern.compile("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-"
            + "[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");
    private static final Pattern HEX32 = Pattern.compile("[0-9a-fA-F]{32}");

    private FieldChecks() {
    }

    /** A check of one string field, as the methods of this class are. */
    @FunctionalInterface
    interface StringCheck {
        void check(ValidationRun run, String value, FieldPath path);
    }

    /** A required string: Required when empty, otherwise checked by {@code format}. */
    static void required(ValidationRun run, String value, FieldPath path, StringCheck format) {
        if (value.isEmpty()) {
            run.add(FieldErrors.required(path, ""));
        } else {
            format.check(run, value, path);
        }
    }

    static void dnsLabel(ValidationRun run, String value, FieldPath path) {
        NameFormats.dns1123Label(value).forEach(message -> run.add(FieldErrors.invalid(path, value, message)));
    }

    static void dnsSubdomain(ValidationRun run, String value, FieldPath path) {
        NameFormats.dns1123Subdomain(value).forEach(message -> run.add(FieldErrors.invalid(path, value, message)));
    }

    /** {@code ValidateCSIDriverName}, which upstream reuses for DRA drivers: checked case-insensitively. */
    static void driverName(ValidationRun run, String value, FieldPath path) {
        if (value.isEmpty()) {
            run.add(FieldErrors.required(path, ""));
        }
        if (GoStrings.byteLength(value) > DRIVER_NAME_MAX_LENGTH) {
            run.add(FieldErrors.tooLong(path, DRIVER_NAME_MAX_LENGTH));
        }
        NameFormats.dns1123Subdomain(value.toLowerCase(Locale.ROOT))
                .forEach(message -> run.add(FieldErrors.invalid(path, value, message)));
    }

    /** One or more DNS subdomains separated by slashes, at most 253 bytes. */
    static void poolName(ValidationRun run, String value, FieldPath path) {
        if (value.isEmpty()) {
            run.add(FieldErrors.required(path, ""));
            return;
        }
        if (GoStrings.byteLength(value) > POOL_NAME_MAX_LENGTH) {
            run.add(FieldErrors.tooLong(path, POOL_NAME_MAX_LENGTH));
        }
        for (String part : value.split("/", -1)) {
            dnsSubdomain(run, part, path);
        }
    }

    /** A node name is a DNS subdomain. */
    static void nodeName(ValidationRun run, String value, FieldPath path) {
        dnsSubdomain(run, value, path);
    }

    /** A device attribute or capacity name: a C identifier, optionally after a driver-like domain and a slash. */
    static void qualifiedName(ValidationRun run, String name, FieldPath path) {
        String[] parts = name.split("/", -1);
        switch (parts.length) {
            case 1 -> cIdentifier(run, parts[0], path);
            case 2 -> {
                if (parts[0].isEmpty()) {
                    run.add(FieldErrors.invalid(path, "", "the domain must not be empty"));
                } else {
                    driverName(run, parts[0], path);
                }
                if (parts[1].isEmpty()) {
                    run.add(FieldErrors.invalid(path, "", "the name must not be empty"));
                } else {
                    cIdentifier(run, parts[1], path);
                }
            }
            default -> run.add(FieldErrors.invalid(path, name, "must not contain more than one slash"));
        }
    }

    static void fullyQualifiedName(ValidationRun run, String name, FieldPath path) {
        qualifiedName(run, name, path);
        if (!name.contains("/")) {
            run.add(FieldErrors.invalid(path, name, "a fully qualified name must be a domain and a name separated by a slash"));
        }
    }

    static void cIdentifier(ValidationRun run, String id, FieldPath path) {
        if (GoStrings.byteLength(id) > DEVICE_MAX_ID_LENGTH) {
            run.add(FieldErrors.tooLong(path, DEVICE_MAX_ID_LENGTH));
        }
        NameFormats.cIdentifier(id).forEach(message -> run.add(FieldErrors.invalid(path, id, message)));
    }

    /** {@code metav1validation.ValidateLabelName}, also used for taint keys and condition types. */
    static void labelName(ValidationRun run, String value, FieldPath path) {
        NameFormats.qualifiedName(value).forEach(message -> run.add(FieldErrors.invalid(path, value, message)));
    }

    static void labelValue(ValidationRun run, String value, FieldPath path) {
        NameFormats.labelValue(value).forEach(message -> run.add(FieldErrors.invalid(path, value, message)));
    }

    /** A {@code k8s-uuid}: a UUID in the normalized lowercase form. */
    static void uid(ValidationRun run, String uid, FieldPath path) {
        String parseError = uuidParseError(uid);
        if (parseError != null) {
            run.add(FieldErrors.invalid(path, uid, "error validating uid: " + parseError));
        } else if (uid.length() != 36 || !uid.equals(uid.toLowerCase(Locale.ROOT))) {
            run.add(FieldErrors.invalid(path, uid, "uid must be in RFC 4122 normalized form, "
                    + "`xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` with lowercase hexadecimal characters"));
        }
    }

    /** The forms github.com/google/uuid accepts, with its error texts. */
    private static String uuidParseError(String uid) {
        return switch (uid.length()) {
            case 36 -> UUID_HEX.matcher(uid).matches() ? null : "invalid UUID format";
            case 38 -> UUID_HEX.matcher(uid.substring(1, 37)).matches() ? null : "invalid UUID format";
            case 45 -> !uid.regionMatches(true, 0, "urn:uuid:", 0, 9)
                    ? "invalid urn prefix: " + GoStrings.quote(uid.substring(0, 9))
                    : UUID_HEX.matcher(uid.substring(9)).matches() ? null : "invalid UUID format";
            case 32 -> HEX32.matcher(uid).matches() ? null : "invalid UUID format";
            default -> "invalid UUID length: " + uid.length();
        };
    }

    /**
     * A {@code runtime.RawExtension} that must hold a JSON object of at most {@code maxLength} bytes. The size is
     * that of the compact JSON; a stored value keeps its size (the limit came later and is not re-checked).
     */
    static void rawObject(ValidationRun run, JsonNode value, FieldPath path, boolean stored, int maxLength) {
        if (value == null || value.isNull()) {
            run.add(FieldErrors.required(path, ""));
        } else if (!stored && GoStrings.byteLength(value.toString()) > maxLength) {
            run.add(FieldErrors.tooLong(path, maxLength));
        } else if (!value.isObject()) {
            run.add(FieldErrors.invalid(path, "<value omitted>", "must be a valid JSON object"));
        }
    }
}
