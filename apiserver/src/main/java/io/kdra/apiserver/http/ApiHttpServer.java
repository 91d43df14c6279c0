package io.kdra.apiserver.http;

import io.kdra.apiserver.api.KindRegistry;
import io.kdra.apiserver.auth.AccessReviews;
import io.kdra.apiserver.auth.Authenticator;
import io.kdra.apiserver.auth.RbacAuthorizer;
import io.kdra.apiserver.nodeproxy.NodeProxy;
import io.kdra.apiserver.registry.Registry;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP front end on Vert.x: the request handler and its endpoints, served on every event loop. Each loop runs its
 * own server instance on the shared port (Vert.x hands each new connection to the next instance), so connections,
 * and the watches and requests on them, spread over the loops. One front end may listen on several ports (with and
 * without TLS): every port serves the same handler, so requests are authenticated and authorized alike on each.
 */
public final class ApiHttpServer {

    private static final Logger LOG = LoggerFactory.getLogger(ApiHttpServer.class);
    private static final int PORT_ATTEMPTS = 5;

    private final Vertx vertx;
    private final int eventLoops;
    private final Handler<HttpServerRequest> handler;
    private final NodeProxy nodeProxy;
    private final ConnectionGuard connections;
    private final List<String> deployments = new ArrayList<>();

    /** @param eventLoops how many server instances to run per port, one per event loop */
    public ApiHttpServer(Vertx vertx, int eventLoops, Registry registry, Authenticator authenticator,
            HttpSettings settings, Clock clock) {
        this.vertx = vertx;
        this.eventLoops = eventLoops;
        KindRegistry kinds = registry.kinds();
        Discovery discovery = new Discovery(kinds);
        Tables tables = new Tables(kinds, clock);
        WatchEndpoint watches = new WatchEndpoint(vertx, registry.store(), kinds, tables, settings);
        this.nodeProxy = new NodeProxy(vertx, registry);
        Subresources subresources = new Subresources(registry, clock, nodeProxy);
        ResourceEndpoint resources = new ResourceEndpoint(registry, kinds, tables, new ListEndpoint(registry, kinds,
                tables), watches, new PatchEndpoint(registry, kinds, clock), subresources);
        OpenApi openApi = new OpenApi(kinds, discovery, settings.gitVersion());
        ServerHealth health = new ServerHealth();
        // errors thrown where no request handler catches them: watch deliveries, timers, body reads
        vertx.exceptionHandler(error -> {
            if (error instanceof VirtualMachineError) {
                health.fatal(error);
            } else {
                LOG.error("unhandled error on an event loop", error);
            }
        });
        this.connections = new ConnectionGuard(vertx, settings.timeouts().idle());
        ReviewEndpoint reviews = new ReviewEndpoint(new AccessReviews(new RbacAuthorizer(registry.store())));
        this.handler = new ApiRequestHandler(vertx, authenticator, kinds, discovery, openApi, resources, watches,
                subresources, reviews, settings, health, connections);
    }

    /**
     * Starts one server instance per event loop, all on the port of {@code options}; called again, listens on another
     * port as well. Vert.x shares a port only among servers that name it (not among servers asking for port 0), so
     * for port 0 a free port is picked first, and picked again should another process take it in between.
     *
     * @return the port bound
     */
    public int listen(HttpServerOptions options) {
        connections.start();
        if (options.getPort() != 0) {
            deploy(options, options.getPort());
            return options.getPort();
        }
        for (int attempt = 1; ; attempt++) {
            int port = freePort(options.getHost());
            try {
                deploy(options, port);
                return port;
            } catch (RuntimeException e) {
                if (attempt == PORT_ATTEMPTS || !addressInUse(e)) {
                    throw e;
                }
                LOG.debug("port {} was taken before the server bound it; picking another", port);
            }
        }
    }

    private void deploy(HttpServerOptions options, int port) {
        // kube-apiserver takes a request line and headers up to 1 MiB (its MaxHeaderBytes)
        HttpServerOptions onPort = new HttpServerOptions(options).setPort(port)
                .setMaxInitialLineLength(ApiRequestHandler.MAX_LINE).setMaxHeaderSize(ApiRequestHandler.MAX_LINE);
        onPort.getInitialSettings().setMaxHeaderListSize(ApiRequestHandler.MAX_LINE);
        String deployment = vertx.deployVerticle(() -> new VerticleBase() {
            @Override
            public Future<?> start() {
                return vertx.createHttpServer(onPort).connectionHandler(connections::opened)
                        .invalidRequestHandler(ApiRequestHandler::invalid).requestHandler(handler).listen();
            }
        }, new DeploymentOptions().setInstances(eventLoops)).await();
        synchronized (deployments) {
            deployments.add(deployment);
        }
    }

    private static int freePort(String host) {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(host))) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot find a free port on " + host, e);
        }
    }

    private static boolean addressInUse(Throwable error) {
        for (Throwable cause = error; cause != null; cause = cause.getCause()) {
            if (cause instanceof BindException || String.valueOf(cause.getMessage()).contains("Address already in use")) {
                return true;
            }
        }
        return false;
    }

    /** Stops the server instances on every port; their connections close with them. */
    public void stop() {
        connections.stop();
        List<String> running;
        synchronized (deployments) {
            running = List.copyOf(deployments);
            deployments.clear();
        }
        for (String deployment : running) {
            vertx.undeploy(deployment).await();
        }
        nodeProxy.close();
    }

    public Vertx vertx() {
        return vertx;
    }
}
