package io.kdra.apiserver.validation;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/** The name formats of k8s.io/apimachinery/pkg/util/validation, returning its problem texts. */
public final class Names {

    private static final String LABEL_REGEX = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
    private static final String SUBDOMAIN_REGEX = LABEL_REGEX + "(\\." + LABEL_REGEX + ")*";
    private static final Pattern LABEL = Pattern.compile(LABEL_REGEX);
    private static final Pattern SUBDOMAIN = Pattern.compile(SUBDOMAIN_REGEX);

    private Names() {}

    /** @return the problems of a DNS (RFC 1123) label: at most 63 characters, lowercase alphanumerics and '-' */
    public static List<String> dnsLabel(String value) {
        List<String> problems = new ArrayList<>();
        if (value.length() > 63) {
            problems.add("must be no more than 63 characters");
        }
        if (!LABEL.matcher(value).matches()) {
            problems.add("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
                    + "must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used "
                    + "for validation is '" + LABEL_REGEX + "')");
        }
        return problems;
    }

    /** @return the problems of a DNS (RFC 1123) subdomain: at most 253 characters, dot-separated labels */
    public static List<String> dnsSubdomain(String value) {
        List<String> problems = new ArrayList<>();
        if (value.length() > 253) {
            problems.add("must be no more than 253 characters");
        }
        if (!SUBDOMAIN.matcher(value).matches()) {
            problems.add("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
                    + "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
                    + "for validation is '" + SUBDOMAIN_REGEX + "')");
        }
        return problems;
    }

    /** @return the problems of a name that must be usable as one URL path segment (RBAC objects) */
    public static List<String> pathSegment(String value) {
        List<String> problems = new ArrayList<>();
        if (value.equals(".") || value.equals("..")) {
            problems.add("may not be '" + value + "'");
            return problems;
        }
        for (String illegal : List.of("/", "%")) {
            if (value.contains(illegal)) {
                problems.add("may not contain '" + illegal + "'");
            }
        }
        return problems;
    }
}
