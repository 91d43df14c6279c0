package io.kdra.apiserver.nodeproxy;

import io.kdra.apiserver.api.ApiException;
import io.vertx.core.MultiMap;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.StringJoiner;

/** Query parameters read as kube-apiserver's parameter codec reads the options of a subresource. */
final class QueryValues {

    private QueryValues() {}

    /**
     * A boolean as Kubernetes converts a query value: absent, {@code 0} and {@code false} (any case) are false,
     * anything else is true.
     */
    static boolean flag(MultiMap query, String name) {
        String value = query.get(name);
        return value != null && !value.equals("0") && !value.equalsIgnoreCase("false");
    }

    /** @return the integer, or null when absent; 400 when it is not an integer */
    static Long integer(MultiMap query, String name) {
        String value = query.get(name);
        if (value == null) {
            return null;
        }
        try {
            return Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            throw ApiException.badRequest(String.format("invalid value for %s: \"%s\" is not an integer", name, value));
        }
    }

    /** Builds a query string of URL-encoded name=value pairs. */
    static final class Builder {
        private final StringJoiner query = new StringJoiner("&");

        Builder add(String name, String value) {
            query.add(URLEncoder.encode(name, StandardCharsets.UTF_8) + "="
                    + URLEncoder.encode(value, StandardCharsets.UTF_8));
            return this;
        }

        Builder addIf(boolean condition, String name, String value) {
            return condition ? add(name, value) : this;
        }

        @Override
        public String toString() {
            return query.toString();
        }
    }
}
