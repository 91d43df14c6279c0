package io.kdra.apiserver.resource;

/** Upstream message texts that many tests expect, spelled out once, independently of the code under test. */
final class Messages {

    static final String DNS_LABEL = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters "
            + "or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex "
            + "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
    static final String DNS_SUBDOMAIN = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
            + "characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', "
            + "regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
    static final String C_IDENTIFIER = "a valid C identifier must start with alphabetic character or '_', followed "
            + "by a string of alphanumeric characters or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName', regex used "
            + "for validation is '[A-Za-z_][A-Za-z0-9_]*')";
    static final String QUALIFIED_NAME_PART = "name part must consist of alphanumeric characters, '-', '_' or '.', "
            + "and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', "
            + "regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
    static final String LABEL_VALUE = "a valid label must be an empty string or consist of alphanumeric characters, "
            + "'-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
            + "'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
    static final String REQUEST_REFERENCE = "must be the name of a request in the claim or the name of a request and "
            + "a subrequest separated by '/'";
    static final String IMMUTABLE = "field is immutable";

    private Messages() {
    }

    /** A CEL checker for tests: expressions containing "bad" do not compile. */
    static java.util.Optional<String> fakeCel(String expression) {
        return expression.contains("bad")
                ? java.util.Optional.of("compilation failed: ERROR: <input>:1:1: undeclared reference to 'bad'")
                : java.util.Optional.empty();
    }
}
