package io.kdra.apiserver.http;

import io.kdra.apiserver.api.ApiException;
import io.kdra.apiserver.auth.AccessReviews;
import io.kdra.apiserver.auth.UserInfo;
import io.kdra.apiserver.json.Json;
import io.kdra.apiserver.protobuf.KubeProtobuf;
import io.kdra.apiserver.protobuf.ProtobufException;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import java.util.Optional;
import org.snakeyaml.engine.v2.exceptions.YamlEngineException;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

/**
 * The create-only review resources ({@link AccessReviews}), which are answered, never stored: a POST of a review in
 * JSON, YAML or protobuf gets 201 and the review with its status, in the format the request accepts.
 */
final class ReviewEndpoint {

    private final AccessReviews reviews;

    ReviewEndpoint(AccessReviews reviews) {
        this.reviews = reviews;
    }

    /** @return the review resource the request addresses, if it addresses one */
    static Optional<AccessReviews.Resource> addressed(RequestInfo info) {
        if (info.namespace() != null || info.name() != null || info.subresource() != null || info.legacyWatch()) {
            return Optional.empty();
        }
        return AccessReviews.find(info.group(), info.version(), info.resource());
    }

    void handle(HttpServerRequest request, AccessReviews.Resource resource, UserInfo user, byte[] body) {
        if (request.method() != HttpMethod.POST) {
            throw ApiException.methodNotAllowed();
        }
        MediaTypes.Format format = MediaTypes.answerFormat(request.getHeader("Accept"), false, true);
        if (format == MediaTypes.Format.YAML) {
            request.response().putHeader("Content-Type", MediaTypes.YAML);
        } else if (format == MediaTypes.Format.PROTOBUF) {
            request.response().putHeader("Content-Type", KubeProtobuf.MEDIA_TYPE);
        }
        Responses.json(request.response(), 201, reviews.answer(resource, decode(request, resource, body), user));
    }

    private static JsonNode decode(HttpServerRequest request, AccessReviews.Resource resource, byte[] body) {
        String contentType = request.getHeader("Content-Type");
        try {
            if (MediaTypes.isProtobufBody(contentType)) {
                return KubeProtobuf.decode(body);
            }
            return MediaTypes.isYamlBody(contentType) ? Json.parseYaml(body) : Json.parse(body);
        } catch (ProtobufException | JacksonException | YamlEngineException e) {
            throw ApiException.badRequest(String.format("the object provided is unrecognized (must be of type %s): %s",
                    resource.kind(), e.getMessage()));
        }
    }
}
