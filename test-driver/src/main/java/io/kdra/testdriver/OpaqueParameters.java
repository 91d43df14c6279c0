package io.kdra.testdriver;

import java.util.Locale;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Reads the opaque parameters of a device configuration the way the upstream test driver does: they must be a JSON
 * object whose values are strings, and each entry becomes an environment variable {@code <prefix>_<key>}.
 */
final class OpaqueParameters {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private OpaqueParameters() {
    }

    /**
     * Adds one environment variable per parameter; a later call overwrites what an earlier one set.
     *
     * @param parameters the parameters as the Kubernetes client decoded them; {@code null} adds nothing
     * @param prefix {@code admin} for class configs, {@code user} for claim configs
     * @throws IllegalArgumentException {@code decoding <prefix> parameters: <what is wrong>}
     */
    static void addEnvironment(Object parameters, String prefix, Map<String, String> env) {
        JsonNode tree = parameters instanceof JsonNode node ? node : JSON.valueToTree(parameters);
        if (tree == null || tree.isNull() || tree.isMissingNode()) {
            return;
        }
        if (!tree.isObject()) {
            throw new IllegalArgumentException("decoding " + prefix + " parameters: expected a JSON object of strings, got "
                    + typeOf(tree));
        }
        for (Map.Entry<String, JsonNode> entry : tree.properties()) {
            JsonNode value = entry.getValue();
            if (value.isString()) {
                env.put(prefix + "_" + entry.getKey(), value.asString());
            } else if (value.isNull()) {
                // Go's encoding/json leaves a string at its zero value for null.
                env.put(prefix + "_" + entry.getKey(), "");
            } else {
                throw new IllegalArgumentException("decoding " + prefix + " parameters: value of \"" + entry.getKey()
                        + "\" must be a string, got " + typeOf(value));
            }
        }
    }

    private static String typeOf(JsonNode node) {
        return node.getNodeType().name().toLowerCase(Locale.ROOT) + " " + node;
    }
}
