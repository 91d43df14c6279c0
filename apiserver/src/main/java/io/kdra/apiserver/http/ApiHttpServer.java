package io.kdra.apiserver.http;

import io.kdra.apiserver.api.KindRegistry;
import io.kdra.apiserver.auth.Authenticator;
import io.kdra.apiserver.nodeproxy.NodeProxy;
import io.kdra.apiserver.registry.Registry;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import java.time.Clock;

/** The HTTP front end on Vert.x: one server, the request handler and its endpoints. */
public final class ApiHttpServer {

    private final Vertx vertx;
    private final HttpServer server;
    private final NodeProxy nodeProxy;

    public ApiHttpServer(Vertx vertx, HttpServerOptions options, Registry registry, Authenticator authenticator,
            HttpSettings settings, Clock clock) {
        this.vertx = vertx;
        KindRegistry kinds = registry.kinds();
        Discovery discovery = new Discovery(kinds);
        Tables tables = new Tables(kinds, clock);
        WatchEndpoint watches = new WatchEndpoint(vertx, registry.store(), kinds, tables, settings);
        this.nodeProxy = new NodeProxy(vertx, registry);
        Subresources subresources = new Subresources(registry, clock, nodeProxy);
        ResourceEndpoint resources = new ResourceEndpoint(registry, kinds, tables, new ListEndpoint(registry, kinds,
                tables), watches, new PatchEndpoint(registry, kinds, clock), subresources);
        OpenApi openApi = new OpenApi(kinds, discovery, settings.gitVersion());
        this.server = vertx.createHttpServer(options)
                .requestHandler(new ApiRequestHandler(authenticator, kinds, discovery, openApi, resources, watches,
                        subresources, settings));
    }

    /** @return the port bound */
    public int start() {
        return server.listen().await().actualPort();
    }

    public void stop() {
        server.close().await();
        nodeProxy.close();
    }

    public Vertx vertx() {
        return vertx;
    }
}
