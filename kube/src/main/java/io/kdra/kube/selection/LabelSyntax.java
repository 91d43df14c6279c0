package io.kdra.kube.selection;

import java.util.regex.Pattern;

/** The syntax of label keys (qualified names) and label values, with the problem texts of apimachinery. */
public final class LabelSyntax {

    private static final Pattern NAME = Pattern.compile("([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]");
    private static final Pattern VALUE = Pattern.compile("(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?");
    private static final Pattern DNS_SUBDOMAIN =
            Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

    static final String NAME_FORMAT = "name part must consist of alphanumeric characters, '-', '_' or '.', and must "
            + "start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used "
            + "for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
    static final String VALUE_FORMAT = "a valid label must be an empty string or consist of alphanumeric characters, "
            + "'-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value', "
            + " or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

    private LabelSyntax() {}

    /** @return why the key is not a qualified name, or null when it is one */
    public static String keyProblem(String key) {
        String name = key;
        int slash = key.indexOf('/');
        if (slash >= 0) {
            String prefix = key.substring(0, slash);
            name = key.substring(slash + 1);
            if (prefix.isEmpty()) {
                return "prefix part must be non-empty";
            }
            if (prefix.length() > 253 || !DNS_SUBDOMAIN.matcher(prefix).matches()) {
                return "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
                        + "'-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', "
                        + "regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
            }
        }
        if (name.isEmpty()) {
            return "name part must be non-empty";
        }
        if (name.length() > 63) {
            return "name part must be no more than 63 characters";
        }
        return NAME.matcher(name).matches() ? null : NAME_FORMAT;
    }

    /** @return why the value is not a label value, or null when it is one */
    public static String valueProblem(String value) {
        if (value.length() > 63) {
            return "must be no more than 63 characters";
        }
        return VALUE.matcher(value).matches() ? null : VALUE_FORMAT;
    }
}
