package io.kdra.apiserver.http;

import io.kdra.apiserver.api.ApiException;
import io.kdra.apiserver.json.Json;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** The opaque {@code continue} token of a paged list: the list's resourceVersion and the last key returned. */
record ContinueToken(long resourceVersion, String lastKey) {

    String encode() {
        ObjectNode node = Json.object();
        node.put("v", "meta.k8s.io/v1");
        node.put("rv", resourceVersion);
        node.put("start", lastKey);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(Json.bytes(node));
    }

    static ContinueToken decode(String token) {
        try {
            JsonNode node = Json.parse(Base64.getUrlDecoder().decode(token.getBytes(StandardCharsets.US_ASCII)));
            if (!node.path("start").isString() || !node.path("rv").isNumber()) {
                throw new IllegalArgumentException("missing fields");
            }
            return new ContinueToken(node.path("rv").asLong(), node.path("start").stringValue());
        } catch (RuntimeException e) {
            throw ApiException.badRequest("continue key is not valid: " + e.getMessage());
        }
    }
}
