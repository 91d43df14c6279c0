package io.kdra.apiserver.http;

import io.kdra.apiserver.api.ApiException;
import io.kdra.apiserver.api.InvalidObject;
import io.kdra.apiserver.json.Json;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;
import java.util.List;
import tools.jackson.databind.JsonNode;

/** Writing answers and Status errors: JSON, or YAML for a request that negotiated it. */
final class Responses {

    static final String JSON = "application/json";

    private Responses() {}

    static void json(HttpServerResponse response, int code, JsonNode body) {
        bytes(response, code, Json.bytes(body));
    }

    static void bytes(HttpServerResponse response, int code, byte[] body) {
        buffer(response, code, Buffer.buffer(body));
    }

    /** Writes the JSON body, as YAML when the request negotiated YAML ({@link MediaTypes#answersInYaml}). */
    static void buffer(HttpServerResponse response, int code, Buffer body) {
        if (response.ended() || response.closed()) {
            return;
        }
        if (MediaTypes.YAML.equals(response.headers().get("Content-Type"))) {
            response.setStatusCode(code).end(Buffer.buffer(Json.yaml(Json.parse(body.getBytes()))));
            return;
        }
        response.setStatusCode(code).putHeader("Content-Type", JSON).end(body);
    }

    /** Adds one {@code Warning: 299 - "<text>"} header a warning, as kube-apiserver sends them. */
    static void warn(HttpServerResponse response, List<String> warnings) {
        for (String warning : warnings) {
            response.headers().add("Warning", "299 - " + InvalidObject.quoteForHeader(warning));
        }
    }

    static void error(HttpServerResponse response, ApiException error) {
        json(response, error.code(), error.status());
    }
}
