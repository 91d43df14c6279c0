package io.kdra.apiserver.http;

import io.kdra.apiserver.api.ApiException;
import io.kdra.apiserver.api.InvalidObject;
import io.kdra.apiserver.json.Json;
import io.kdra.apiserver.protobuf.KubeProtobuf;
import io.kdra.apiserver.protobuf.ProtobufException;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** Writing answers and Status errors: JSON, or YAML or protobuf for a request that negotiated it. */
final class Responses {

    private static final Logger LOG = LoggerFactory.getLogger(Responses.class);

    static final String JSON = "application/json";

    private Responses() {}

    static void json(HttpServerResponse response, int code, JsonNode body) {
        bytes(response, code, Json.bytes(body));
    }

    static void bytes(HttpServerResponse response, int code, byte[] body) {
        buffer(response, code, Buffer.buffer(body));
    }

    /**
     * Writes the JSON body, as YAML or protobuf when the request negotiated it ({@link MediaTypes#answerFormat}). An
     * answer of a kind without a protobuf form (a table, a custom kind) is JSON, as kube-apiserver falls back to the
     * JSON its clients also accept.
     */
    static void buffer(HttpServerResponse response, int code, Buffer body) {
        if (response.ended() || response.closed()) {
            return;
        }
        String negotiated = response.headers().get("Content-Type");
        if (MediaTypes.YAML.equals(negotiated)) {
            response.setStatusCode(code).end(Buffer.buffer(Json.yaml(Json.parse(body.getBytes()))));
            return;
        }
        if (KubeProtobuf.MEDIA_TYPE.equals(negotiated)) {
            JsonNode object = Json.parse(body.getBytes());
            if (object instanceof ObjectNode json) {
                try {
                    response.setStatusCode(code).end(Buffer.buffer(KubeProtobuf.encode(json)));
                    return;
                } catch (ProtobufException e) {
                    LOG.debug("answering in JSON: {}", e.getMessage());
                }
            }
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
