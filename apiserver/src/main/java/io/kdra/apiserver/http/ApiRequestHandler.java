package io.kdra.apiserver.http;

import io.kdra.apiserver.api.ApiException;
import io.kdra.apiserver.api.KindRegistry;
import io.kdra.apiserver.api.ResourceType;
import io.kdra.apiserver.auth.AccessReviews;
import io.kdra.apiserver.auth.Authenticator;
import io.kdra.apiserver.auth.Impersonation;
import io.kdra.apiserver.auth.UserInfo;
import io.kdra.apiserver.json.Json;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.HttpVersion;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The entry of every request: health and version without authentication; then bearer-token authentication,
 * impersonation, WebSocket upgrades (exec streams, watches), a bounded body read (413 beyond the limit), and dispatch
 * to discovery, OpenAPI, a review or a resource.
 * Every failure becomes a kube-style Status.
 */
final class ApiRequestHandler implements Handler<HttpServerRequest> {

    private static final Logger LOG = LoggerFactory.getLogger(ApiRequestHandler.class);
    /** How long a connection answered before the end of its request's body waits for that end before it closes. */
    private static final long LINGER_MILLIS = 2_000;
    /** The limit of the request line and of the headers, set on the server's options. */
    static final int MAX_LINE = 1024 * 1024;

    private final Authenticator authenticator;
    private final KindRegistry kinds;
    private final Discovery discovery;
    private final OpenApi openApi;
    private final ResourceEndpoint resources;
    private final WatchEndpoint watches;
    private final Subresources subresources;
    private final ReviewEndpoint reviews;
    private final HttpSettings settings;
    private final Vertx vertx;
    private final ServerHealth health;
    private final ConnectionGuard connections;

    ApiRequestHandler(Vertx vertx, Authenticator authenticator, KindRegistry kinds, Discovery discovery, OpenApi openApi,
            ResourceEndpoint resources, WatchEndpoint watches, Subresources subresources, ReviewEndpoint reviews,
            HttpSettings settings, ServerHealth health, ConnectionGuard connections) {
        this.vertx = vertx;
        this.health = health;
        this.connections = connections;
        this.authenticator = authenticator;
        this.kinds = kinds;
        this.discovery = discovery;
        this.openApi = openApi;
        this.resources = resources;
        this.watches = watches;
        this.subresources = subresources;
        this.reviews = reviews;
        this.settings = settings;
    }

    @Override
    public void handle(HttpServerRequest request) {
        HttpServerResponse response = request.response();
        HttpConnection connection = request.connection();
        connections.requestStarted(connection);
        // a request that fails before its body is read replaces this handler, and closes the connection instead
        response.endHandler(v -> connections.requestEnded(connection));
        try {
            checkQuery(request);
            String path = request.path();
            if (servePublic(request, path)) {
                return;
            }
            UserInfo user = Impersonation.apply(authenticator.authenticate(request.getHeader("Authorization")),
                    headers(request));
            String length = request.getHeader("Content-Length");
            if (length != null && parseLength(length) > settings.maxBodyBytes()) {
                fail(request, ApiException.tooLarge(settings.maxBodyBytes()));
                return;
            }
            if ("websocket".equalsIgnoreCase(request.getHeader("Upgrade"))) {
                upgrade(request, user);
                return;
            }
            readBody(request, body -> dispatch(request, user, body));
        } catch (ApiException e) {
            Responses.error(response, e);
        } catch (RuntimeException e) {
            LOG.error("request {} {} failed", request.method(), request.uri(), e);
            Responses.error(response, ApiException.internal(String.valueOf(e.getMessage())));
        } catch (VirtualMachineError e) {
            broken(request, e);
        }
    }

    /** Marks the server broken and tries to answer; the answer itself may fail when memory is exhausted. */
    private void broken(HttpServerRequest request, VirtualMachineError error) {
        health.fatal(error);
        try {
            Responses.error(request.response(), ApiException.internal("the API server is broken: " + error));
        } catch (RuntimeException | VirtualMachineError e) {
            request.connection().close();
        }
    }

    /**
     * Answers a request Vert.x could not decode with a Status, as kube-apiserver's 414 and 431 carry one: a request
     * line or headers over the 1 MiB limit, or a malformed request. The connection is closed, since the rest of the
     * request cannot be told from the next one.
     */
    static void invalid(HttpServerRequest request) {
        Throwable cause = request.decoderResult().cause();
        ApiException error;
        if (cause instanceof TooLongHttpLineException) {
            error = ApiException.of(414, "RequestURITooLong", "the request URI is longer than the limit of "
                    + MAX_LINE + " bytes", null);
        } else if (cause instanceof TooLongHttpHeaderException) {
            error = ApiException.of(431, "RequestHeaderFieldsTooLarge", "the request headers are larger than the "
                    + "limit of " + MAX_LINE + " bytes", null);
        } else {
            error = ApiException.badRequest("malformed HTTP request: " + (cause == null ? "unknown error"
                    : cause.getMessage()));
        }
        request.response().putHeader("Connection", "close");
        request.response().endHandler(ended -> request.connection().close());
        Responses.error(request.response(), error);
    }

    /** Rejects a query string with a bad percent escape, which Go's URL parser rejects too. */
    private static void checkQuery(HttpServerRequest request) {
        try {
            request.params();
        } catch (IllegalArgumentException e) {
            String query = request.query();
            throw ApiException.badRequest("invalid query string \"" + (query.length() > 256 ? query.substring(0, 256)
                    + "..." : query) + "\": " + e.getMessage());
        }
    }

    private boolean servePublic(HttpServerRequest request, String path) {
        switch (path) {
            case "/healthz", "/livez", "/readyz" -> {
                String failure = health.failure();
                HttpServerResponse response = request.response().putHeader("Content-Type", "text/plain; charset=utf-8");
                if (failure == null) {
                    response.end("ok");
                } else {
                    response.setStatusCode(500).end("[-]server failed: " + failure + "\n" + path.substring(1)
                            + " check failed\n");
                }
                return true;
            }
            case "/version" -> {
                Responses.json(request.response(), 200, version());
                return true;
            }
            default -> {
                return false;
            }
        }
    }

    private void dispatch(HttpServerRequest request, UserInfo user, byte[] body) {
        try {
            String path = request.path();
            RequestInfo info = RequestInfo.parse(path);
            if (info == null) {
                serveNonResource(request, path);
                return;
            }
            Optional<AccessReviews.Resource> review = ReviewEndpoint.addressed(info);
            if (review.isPresent()) {
                reviews.handle(request, review.get(), user, body);
                return;
            }
            resources.handle(call(request, info, user, body));
        } catch (ApiException e) {
            Responses.error(request.response(), e);
        } catch (RuntimeException e) {
            LOG.error("request {} {} failed", request.method(), request.uri(), e);
            Responses.error(request.response(), ApiException.internal(String.valueOf(e.getMessage())));
        } catch (VirtualMachineError e) {
            broken(request, e);
        }
    }

    private void serveNonResource(HttpServerRequest request, String path) {
        if (request.method() != HttpMethod.GET) {
            throw ApiException.pathNotFound();
        }
        ObjectNode document = discovery.document(path, request.authority() == null ? "" : request.authority().toString());
        if (document != null) {
            Responses.json(request.response(), 200, document);
            return;
        }
        if (openApi.serve(request, path)) {
            return;
        }
        throw ApiException.pathNotFound();
    }

    private Call call(HttpServerRequest request, RequestInfo info, UserInfo user, byte[] body) {
        ResourceType type = kinds.find(info.group(), info.version(), info.resource())
                .orElseThrow(ApiException::pathNotFound);
        boolean namespacesItself = type.group().isEmpty() && type.plural().equals("namespaces");
        if (!type.namespaced() && info.namespace() != null && !namespacesItself) {
            throw ApiException.pathNotFound();
        }
        return new Call(request, info, type, user, body);
    }

    /** A WebSocket is a pod's exec or port-forward stream, or a watch. */
    private void upgrade(HttpServerRequest request, UserInfo user) {
        RequestInfo info = RequestInfo.parse(request.path());
        if (info != null && ("exec".equals(info.subresource()) || "portforward".equals(info.subresource()))) {
            Call call = call(request, info, user, new byte[0]);
            if (!call.type().hasSubresource(info.subresource())) {
                throw ApiException.pathNotFound();
            }
            if ("exec".equals(info.subresource())) {
                subresources.exec(call);
            } else {
                subresources.portForward(call);
            }
            return;
        }
        if (info == null || info.name() != null || request.method() != HttpMethod.GET) {
            throw ApiException.badRequest("only watches can be served over WebSocket");
        }
        Call call = call(request, info, user, new byte[0]);
        if (!info.legacyWatch() && !call.flag("watch")) {
            throw ApiException.badRequest("only watches can be served over WebSocket");
        }
        WatchEndpoint.Watch watch = watches.prepare(call);
        request.toWebSocket().onSuccess(socket -> {
            try {
                watches.start(watch, WatchSink.webSocket(socket));
            } catch (ApiException e) {
                socket.writeTextMessage(Json.string(errorEvent(e))).onComplete(done -> socket.close());
            }
        }).onFailure(e -> LOG.warn("WebSocket upgrade of {} failed: {}", request.uri(), e.toString()));
    }

    private static ObjectNode errorEvent(ApiException error) {
        ObjectNode event = Json.object();
        event.put("type", "ERROR");
        event.set("object", error.status());
        return event;
    }

    private void readBody(HttpServerRequest request, java.util.function.Consumer<byte[]> then) {
        Buffer body = Buffer.buffer();
        boolean[] failed = {false};
        long timeoutMillis = settings.timeouts().body().toMillis();
        long timer = request.isEnded() ? -1 : vertx.setTimer(timeoutMillis, id -> {
            if (!failed[0] && !request.isEnded()) {
                failed[0] = true;
                fail(request, ApiException.timeout("the request body did not arrive within " + timeoutMillis
                        + " ms"));
            }
        });
        request.handler(chunk -> {
            if (failed[0]) {
                return;
            }
            if (body.length() + chunk.length() > settings.maxBodyBytes()) {
                failed[0] = true;
                fail(request, ApiException.tooLarge(settings.maxBodyBytes()));
                return;
            }
            body.appendBuffer(chunk);
        });
        request.exceptionHandler(e -> LOG.debug("reading the body of {} failed: {}", request.uri(), e.toString()));
        request.endHandler(v -> {
            if (timer >= 0) {
                vertx.cancelTimer(timer);
            }
            if (!failed[0]) {
                then.accept(body.getBytes());
            }
        });
    }

    /**
     * Answers a request whose body is not read to its end. Over HTTP/1 the rest of the body would be taken for the
     * next request, so the connection is closed, as its header says; HTTP/2 ends just the stream.
     */
    private void fail(HttpServerRequest request, ApiException error) {
        if (request.version() != HttpVersion.HTTP_2) {
            request.response().putHeader("Connection", "close");
            request.response().endHandler(ended -> closeAfterBody(request));
        }
        Responses.error(request.response(), error);
    }

    /**
     * Closes the connection once the client has sent the rest of the body, which is dropped, or after
     * {@link #LINGER_MILLIS} at most, as Go's server lingers before it closes: closed while the client still sends, the
     * connection is reset, and a client that is still writing (Java's, kubectl's) gets a broken pipe instead of the
     * answer.
     */
    private void closeAfterBody(HttpServerRequest request) {
        HttpConnection connection = request.connection();
        if (request.isEnded()) {
            connection.close();
            return;
        }
        long timer = vertx.setTimer(LINGER_MILLIS, id -> connection.close());
        request.handler(dropped -> {});
        request.endHandler(ended -> {
            vertx.cancelTimer(timer);
            connection.close();
        });
    }

    private static long parseLength(String length) {
        try {
            return Long.parseLong(length.trim());
        } catch (NumberFormatException e) {
            throw ApiException.badRequest("invalid Content-Length: " + length);
        }
    }

    private static List<Map.Entry<String, String>> headers(HttpServerRequest request) {
        return request.headers().entries();
    }

    private ObjectNode version() {
        String git = settings.gitVersion();
        String[] numbers = git.replaceFirst("^v", "").split("\\.");
        ObjectNode version = Json.object();
        version.put("major", numbers[0]);
        version.put("minor", numbers.length > 1 ? numbers[1] : "0");
        version.put("emulationMajor", numbers[0]);
        version.put("emulationMinor", numbers.length > 1 ? numbers[1] : "0");
        version.put("gitVersion", git);
        version.put("gitCommit", "0000000000000000000000000000000000000000");
        version.put("gitTreeState", "clean");
        version.put("buildDate", "1970-01-01T00:00:00Z");
        version.put("goVersion", "kdra (java " + System.getProperty("java.version") + ")");
        version.put("compiler", "kdra");
        version.put("platform", "linux/amd64");
        return version;
    }
}
