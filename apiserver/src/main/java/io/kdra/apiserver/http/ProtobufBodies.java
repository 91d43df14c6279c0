package io.kdra.apiserver.http;

import io.kdra.apiserver.api.ApiException;
import io.kdra.apiserver.json.Json;
import io.kdra.apiserver.protobuf.KubeProtobuf;
import io.kdra.apiserver.protobuf.ProtobufException;
import io.vertx.core.http.HttpMethod;

/**
 * Request bodies sent as protobuf: transcoded to JSON before anything reads them, so that every later step (decoding,
 * defaults, validation) is the one JSON bodies take. Only the kinds with a protobuf form accept one; a patch never.
 */
final class ProtobufBodies {

    private ProtobufBodies() {}

    /**
     * @return the call with its body as JSON when it was protobuf, else the call itself
     * @throws ApiException 415 when the object the request carries has no protobuf form; 400 when the body is no
     *     protobuf envelope of a known kind
     */
    static Call asJson(Call call) {
        String contentType = call.request().getHeader("Content-Type");
        HttpMethod method = call.request().method();
        if (!MediaTypes.isProtobufBody(contentType) || method == HttpMethod.PATCH || method == HttpMethod.GET) {
            return call;
        }
        if (method == HttpMethod.DELETE && call.body().length == 0) {
            return call;
        }
        ObjectKind expected = expectedKind(call);
        if (!KubeProtobuf.supports(expected.apiVersion(), expected.kind())) {
            throw ApiException.unsupportedMediaType(contentType, Responses.JSON + ", " + MediaTypes.YAML);
        }
        try {
            return call.withTranscodedBody(Json.bytes(KubeProtobuf.decode(call.body())));
        } catch (ProtobufException e) {
            throw ApiException.badRequest(String.format("the object provided is unrecognized (must be of type %s): %s",
                    expected.kind(), e.getMessage()));
        }
    }

    private record ObjectKind(String apiVersion, String kind) {}

    /** @return the kind of the object the request's body is to hold */
    private static ObjectKind expectedKind(Call call) {
        if (call.request().method() == HttpMethod.DELETE) {
            return new ObjectKind("meta.k8s.io/v1", "DeleteOptions");
        }
        String subresource = call.info().subresource();
        if (subresource == null) {
            subresource = "";
        }
        return switch (subresource) {
            case "scale" -> new ObjectKind("autoscaling/v1", "Scale");
            case "binding" -> new ObjectKind("v1", "Binding");
            case "eviction" -> new ObjectKind("policy/v1", "Eviction");
            default -> new ObjectKind(call.type().apiVersion(call.info().version()), call.type().kind());
        };
    }
}
