package io.kdra.apiserver.resource;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The string formats of k8s.io/apimachinery's {@code validation} package: each check returns the messages that
 * kube-apiserver reports (empty when the value is valid).
 */
final class NameFormats {

    static final int DNS1123_LABEL_MAX_LENGTH = 63;
    static final int DNS1123_SUBDOMAIN_MAX_LENGTH = 253;
    static final int QUALIFIED_NAME_MAX_LENGTH = 63;
    static final int LABEL_VALUE_MAX_LENGTH = 63;

    private static final String DNS1123_LABEL_FORMAT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
    private static final String DNS1123_LABEL_MESSAGE = "a lowercase RFC 1123 label must consist of lower case "
            + "alphanumeric characters or '-', and must start and end with an alphanumeric character";
    private static final Pattern DNS1123_LABEL = Pattern.compile(DNS1123_LABEL_FORMAT);

    private static final String DNS1123_SUBDOMAIN_FORMAT = DNS1123_LABEL_FORMAT + "(\\." + DNS1123_LABEL_FORMAT + ")*";
    private static final String DNS1123_SUBDOMAIN_MESSAGE = "a lowercase RFC 1123 subdomain must consist of lower case "
            + "alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
    private static final Pattern DNS1123_SUBDOMAIN = Pattern.compile(DNS1123_SUBDOMAIN_FORMAT);

    private static final String C_IDENTIFIER_FORMAT = "[A-Za-z_][A-Za-z0-9_]*";
    private static final String C_IDENTIFIER_MESSAGE = "a valid C identifier must start with alphabetic character "
            + "or '_', followed by a string of alphanumeric characters or '_'";
    private static final Pattern C_IDENTIFIER = Pattern.compile(C_IDENTIFIER_FORMAT);

    private static final String QUALIFIED_NAME_FORMAT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
    private static final String QUALIFIED_NAME_MESSAGE = "must consist of alphanumeric characters, '-', '_' or '.', "
            + "and must start and end with an alphanumeric character";
    private static final Pattern QUALIFIED_NAME = Pattern.compile(QUALIFIED_NAME_FORMAT);

    private static final String LABEL_VALUE_FORMAT = "(" + QUALIFIED_NAME_FORMAT + ")?";
    private static final String LABEL_VALUE_MESSAGE = "a valid label must be an empty string or consist of "
            + "alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
    private static final Pattern LABEL_VALUE = Pattern.compile(LABEL_VALUE_FORMAT);

    private NameFormats() {
    }

    static List<String> dns1123Label(String value) {
        List<String> messages = new ArrayList<>();
        if (GoStrings.byteLength(value) > DNS1123_LABEL_MAX_LENGTH) {
            messages.add(maxLength(DNS1123_LABEL_MAX_LENGTH));
        }
        if (!DNS1123_LABEL.matcher(value).matches()) {
            messages.add(DNS1123_SUBDOMAIN.matcher(value).matches()
                    ? "must not contain dots"
                    : regexError(DNS1123_LABEL_MESSAGE, DNS1123_LABEL_FORMAT, "my-name", "123-abc"));
        }
        return messages;
    }

    static List<String> dns1123Subdomain(String value) {
        List<String> messages = new ArrayList<>();
        if (GoStrings.byteLength(value) > DNS1123_SUBDOMAIN_MAX_LENGTH) {
            messages.add(maxLength(DNS1123_SUBDOMAIN_MAX_LENGTH));
        }
        if (!DNS1123_SUBDOMAIN.matcher(value).matches()) {
            messages.add(regexError(DNS1123_SUBDOMAIN_MESSAGE, DNS1123_SUBDOMAIN_FORMAT, "example.com"));
        }
        return messages;
    }

    static List<String> cIdentifier(String value) {
        return C_IDENTIFIER.matcher(value).matches()
                ? List.of()
                : List.of(regexError(C_IDENTIFIER_MESSAGE, C_IDENTIFIER_FORMAT, "my_name", "MY_NAME", "MyName"));
    }

    /** {@code IsQualifiedName}: the format of label keys, annotation keys and condition types. */
    static List<String> qualifiedName(String value) {
        List<String> messages = new ArrayList<>();
        String[] parts = value.split("/", -1);
        String name;
        switch (parts.length) {
            case 1 -> name = parts[0];
            case 2 -> {
                String prefix = parts[0];
                name = parts[1];
                if (prefix.isEmpty()) {
                    messages.add("prefix part must be non-empty");
                } else {
                    dns1123Subdomain(prefix).forEach(message -> messages.add("prefix part " + message));
                }
            }
            default -> {
                messages.add("a qualified name "
                        + regexError(QUALIFIED_NAME_MESSAGE, QUALIFIED_NAME_FORMAT, "MyName", "my.name", "123-abc")
                        + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')");
                return messages;
            }
        }
        if (name.isEmpty()) {
            messages.add("name part must be non-empty");
        } else if (GoStrings.byteLength(name) > QUALIFIED_NAME_MAX_LENGTH) {
            messages.add("name part " + maxLength(QUALIFIED_NAME_MAX_LENGTH));
        }
        if (!QUALIFIED_NAME.matcher(name).matches()) {
            messages.add("name part "
                    + regexError(QUALIFIED_NAME_MESSAGE, QUALIFIED_NAME_FORMAT, "MyName", "my.name", "123-abc"));
        }
        return messages;
    }

    static List<String> labelValue(String value) {
        List<String> messages = new ArrayList<>();
        if (GoStrings.byteLength(value) > LABEL_VALUE_MAX_LENGTH) {
            messages.add(maxLength(LABEL_VALUE_MAX_LENGTH));
        }
        if (!LABEL_VALUE.matcher(value).matches()) {
            messages.add(regexError(LABEL_VALUE_MESSAGE, LABEL_VALUE_FORMAT, "MyValue", "my_value", "12345"));
        }
        return messages;
    }

    static String maxLength(int length) {
        return "must be no more than " + length + " characters";
    }

    /** {@code validation.RegexError}, including its double space before a second example. */
    static String regexError(String message, String format, String... examples) {
        if (examples.length == 0) {
            return message + " (regex used for validation is '" + format + "')";
        }
        StringBuilder text = new StringBuilder(message).append(" (e.g. ");
        for (int i = 0; i < examples.length; i++) {
            if (i > 0) {
                text.append(" or ");
            }
            text.append('\'').append(examples[i]).append("', ");
        }
        return text.append("regex used for validation is '").append(format).append("')").toString();
    }
}
