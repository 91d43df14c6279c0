package io.kdra.cluster.kubelet.server;

import io.kdra.apiserver.api.ApiException;
import io.kdra.apiserver.nodeproxy.PodLogOptions;
import io.kdra.cluster.kubelet.server.ContainerStreams.ContainerNotFoundException;
import io.kdra.cluster.kubelet.server.ContainerStreams.ContainerUnavailableException;
import io.kdra.cluster.kubelet.server.ContainerStreams.PodContainer;
import io.kdra.kube.stream.ExecProtocols;
import io.kdra.kube.stream.PortForwardProtocols;
import io.vertx.core.Context;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetClientOptions;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A simulated kubelet's HTTP server on 127.0.0.1, with the endpoints kube-apiserver and Prometheus use on a real
 * kubelet ({@code pkg/kubelet/server/server.go}): {@code /healthz}, {@code /metrics}, {@code /containerLogs} (plain
 * text, streamed while following), {@code /exec} (WebSocket, channel protocol v5 or v4) and {@code /portForward}
 * (WebSocket, channel protocol). Containers are reached
 * through the node's {@link ContainerStreams}. Errors are plain text, as the kubelet writes them.
 */
public final class KubeletServer implements AutoCloseable {

    /** The exec subprotocols served, preferred first. */

    private static final Logger LOG = LoggerFactory.getLogger(KubeletServer.class);
    private static final String LOOPBACK = "127.0.0.1";
    private static final int CHUNK = 32 * 1024;
    private static final int CONNECT_TIMEOUT_MILLIS = 10_000;
    private static final AtomicInteger THREADS = new AtomicInteger();

    private final Vertx vertx;
    private final ContainerStreams streams;
    private final Supplier<String> metrics;
    private final ExecutorService blocking = Executors.newCachedThreadPool(daemonThreads());
    private final Set<Runnable> open = ConcurrentHashMap.newKeySet();
    private final HttpServer server;
    private final NetClient network;
    private int port;

    /**
     * @param vertx shared with the rest of the node; this server creates no Vert.x of its own
     * @param metrics the Prometheus text served on {@code /metrics}
     */
    public KubeletServer(Vertx vertx, ContainerStreams streams, Supplier<String> metrics) {
        this.vertx = vertx;
        this.streams = streams;
        this.metrics = metrics;
        this.network = vertx.createNetClient(new NetClientOptions().setConnectTimeout(CONNECT_TIMEOUT_MILLIS));
        this.server = vertx.createHttpServer(new HttpServerOptions().setHost(LOOPBACK).setPort(0)
                        .setWebSocketSubProtocols(Stream.concat(ExecProtocols.SERVED.stream(),
                                PortForwardProtocols.CHANNELS.stream()).toList()))
                .requestHandler(this::handle);
    }

    /** Binds an ephemeral port on 127.0.0.1. @return the port, for the Node's {@code kubeletEndpoint} */
    public int start() {
        port = server.listen().await().actualPort();
        return port;
    }

    public int port() {
        return port;
    }

    /** Stops listening, ends every log stream and exec session (killing their commands) and frees the threads. */
    @Override
    public void close() {
        server.close().await();
        open.forEach(Runnable::run);
        network.close();
        open.clear();
        blocking.shutdownNow();
    }

    private void handle(HttpServerRequest request) {
        try {
            List<String> path = segments(request.path());
            String endpoint = path.isEmpty() ? "" : path.get(0);
            switch (endpoint) {
                case "healthz" -> text(request.response(), 200, "ok");
                case "metrics" -> request.response().putHeader("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
                        .end(metrics.get());
                case "containerLogs" -> {
                    require(request, path.size() == 4, Set.of(HttpMethod.GET));
                    logs(request, new PodContainer(path.get(1), path.get(2), path.get(3)));
                }
                case "exec" -> {
                    // /exec/{namespace}/{pod}/{container}, or with the pod's uid before the container
                    require(request, path.size() == 4 || path.size() == 5, Set.of(HttpMethod.GET, HttpMethod.POST));
                    exec(request, new PodContainer(path.get(1), path.get(2), path.get(path.size() - 1)));
                }
                case "portForward" -> {
                    // /portForward/{namespace}/{pod}, or with the pod's uid after it
                    require(request, path.size() == 3 || path.size() == 4, Set.of(HttpMethod.GET, HttpMethod.POST));
                    portForward(request, path.get(1), path.get(2));
                }
                default -> throw new RequestError(404, "404 page not found");
            }
        } catch (RequestError e) {
            text(request.response(), e.code, e.getMessage());
        } catch (ApiException e) {
            text(request.response(), e.code(), e.getMessage());
        } catch (RuntimeException e) {
            LOG.error("kubelet request {} {} failed", request.method(), request.uri(), e);
            text(request.response(), 500, "Internal Server Error: " + e.getMessage());
        }
    }

    private static void require(HttpServerRequest request, boolean pathFits, Set<HttpMethod> methods) {
        if (!pathFits) {
            throw new RequestError(404, "404 page not found");
        }
        if (!methods.contains(request.method())) {
            throw new RequestError(405, "405: Method Not Allowed");
        }
    }

    private void logs(HttpServerRequest request, PodContainer target) {
        PodLogOptions parsed = PodLogOptions.parse(request.params(), target.pod());
        LogOptions options = new LogOptions(parsed.follow(), parsed.previous(),
                parsed.tailLines() == null ? -1 : parsed.tailLines(),
                parsed.limitBytes() == null ? -1 : parsed.limitBytes(), parsed.since(Instant.now()),
                parsed.timestamps());
        HttpServerResponse response = request.response();
        Context context = vertx.getOrCreateContext();
        // the client may go before the runtime has opened the log: the close is watched from the start
        BlockingSink sink = new BlockingSink(response);
        AtomicReference<InputStream> opened = new AtomicReference<>();
        Runnable stop = () -> {
            sink.close();
            InputStream log = opened.get();
            if (log != null) {
                closeQuietly(log);
            }
        };
        open.add(stop);
        response.closeHandler(closed -> stop.run());
        blocking.execute(() -> {
            try {
                InputStream log = streams.logs(target, options);
                opened.set(log);
                streamLog(log, sink, response, options.limitBytes());
            } catch (ContainerNotFoundException e) {
                context.runOnContext(v -> text(response, 404, e.getMessage()));
            } catch (ContainerUnavailableException e) {
                context.runOnContext(v -> text(response, 400, e.getMessage()));
            } catch (IOException | RuntimeException e) {
                LOG.warn("reading the log of {} failed", target, e);
                context.runOnContext(v -> text(response, 500, "failed to read the container's log: " + e.getMessage()));
            } finally {
                open.remove(stop);
            }
        });
    }

    /** Copies the log as it comes; the kubelet enforces limitBytes itself, whatever the runtime did. */
    private static void streamLog(InputStream log, BlockingSink sink, HttpServerResponse response, long limitBytes) {
        try (log) {
            if (sink.isClosed()) {
                return;
            }
            response.setChunked(true).putHeader("Content-Type", "text/plain");
            long left = limitBytes < 0 ? Long.MAX_VALUE : limitBytes;
            byte[] buffer = new byte[CHUNK];
            int read;
            while (left > 0 && (read = log.read(buffer, 0, (int) Math.min(buffer.length, left))) >= 0) {
                if (read > 0 && !sink.write(Buffer.buffer(read).appendBytes(buffer, 0, read))) {
                    return;
                }
                left -= read;
            }
            if (!sink.isClosed()) {
                response.end();
            }
        } catch (IOException e) {
            if (!sink.isClosed()) {
                LOG.debug("the log stream ended early: {}", e.toString());
                response.reset();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void exec(HttpServerRequest request, PodContainer target) {
        MultiMap query = request.params();
        ExecSession.Streams wanted = new ExecSession.Streams("1".equals(query.get("input")),
                "1".equals(query.get("output")), "1".equals(query.get("error")));
        List<String> command = query.getAll("command");
        if ("1".equals(query.get("tty"))) {
            throw new RequestError(400, "tty is not supported");
        }
        if (!wanted.stdin() && !wanted.stdout() && !wanted.stderr()) {
            throw new RequestError(400, "you must specify at least 1 of stdin, stdout, stderr");
        }
        if (command.isEmpty()) {
            throw new RequestError(400, "you must specify at least one command for the container");
        }
        String protocol = protocol(request);
        Context context = vertx.getOrCreateContext();
        request.pause();
        blocking.execute(() -> {
            Process process = null;
            String startError = null;
            try {
                process = streams.exec(target, command);
            } catch (ContainerNotFoundException e) {
                context.runOnContext(v -> {
                    request.resume();
                    text(request.response(), 404, e.getMessage());
                });
                return;
            } catch (IOException | RuntimeException e) {
                startError = String.valueOf(e.getMessage());
            }
            Process started = process;
            String error = startError;
            context.runOnContext(v -> request.toWebSocket().onSuccess(socket -> {
                ExecSession session = new ExecSession(socket, started, error, wanted,
                        protocol.equals("v5.channel.k8s.io"), blocking);
                Runnable end = session::end;
                open.add(end);
                session.start(() -> open.remove(end));
            }).onFailure(e -> {
                LOG.debug("exec upgrade failed: {}", e.toString());
                if (started != null) {
                    started.destroyForcibly();
                }
            }));
        });
    }

    private void portForward(HttpServerRequest request, String namespace, String pod) {
        List<Integer> ports = new ArrayList<>();
        for (String value : request.params().getAll("ports")) {
            for (String port : value.split(",")) {
                try {
                    int number = Integer.parseInt(port.trim());
                    if (number < 1 || number > 65535) {
                        throw new NumberFormatException();
                    }
                    ports.add(number);
                } catch (NumberFormatException e) {
                    throw new RequestError(400, "error parsing ports: invalid port \"" + port + "\"");
                }
            }
        }
        if (ports.isEmpty()) {
            throw new RequestError(400, "query parameter \"port\" is required");
        }
        if (PortForwardProtocols.negotiate(request.getHeader("Upgrade"),
                request.headers().getAll("Sec-WebSocket-Protocol"), PortForwardProtocols.CHANNELS).isEmpty()) {
            throw new RequestError(400, "unable to upgrade: port forwarding needs a WebSocket with one of the "
                    + "subprotocols " + PortForwardProtocols.CHANNELS + " (SPDY is not served)");
        }
        List<InetSocketAddress> targets = new ArrayList<>();
        try {
            for (int port : ports) {
                targets.add(streams.portAddress(namespace, pod, port));
            }
        } catch (ContainerNotFoundException e) {
            throw new RequestError(404, e.getMessage());
        }
        request.toWebSocket().onSuccess(socket -> {
            PortForwardSession session = new PortForwardSession(socket, ports, targets, network);
            Runnable end = session::end;
            open.add(end);
            session.start(() -> open.remove(end));
        }).onFailure(e -> LOG.debug("port-forward upgrade failed: {}", e.toString()));
    }

    /**
     * @return the first subprotocol the client offers that is served
     * @throws RequestError 400 for a request that is no WebSocket upgrade (SPDY is not served) or offers none
     */
    private static String protocol(HttpServerRequest request) {
        try {
            return ExecProtocols.negotiate(request.getHeader("Upgrade"),
                    request.headers().getAll("Sec-WebSocket-Protocol"));
        } catch (ExecProtocols.UnsupportedUpgradeException e) {
            throw new RequestError(400, e.getMessage());
        }
    }

    private static void text(HttpServerResponse response, int code, String message) {
        if (response.ended() || response.closed() || response.headWritten()) {
            return;
        }
        response.setStatusCode(code).putHeader("Content-Type", "text/plain; charset=utf-8").end(message);
    }

    private static List<String> segments(String path) {
        List<String> segments = new ArrayList<>();
        for (String segment : path.split("/")) {
            if (!segment.isEmpty()) {
                segments.add(segment);
            }
        }
        return segments;
    }

    private static void closeQuietly(InputStream stream) {
        try {
            stream.close();
        } catch (IOException e) {
            LOG.debug("closing a log stream: {}", e.toString());
        }
    }

    private static ThreadFactory daemonThreads() {
        return task -> {
            Thread thread = new Thread(task, "kubelet-stream-" + THREADS.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }

    /** A request the kubelet refuses, answered in plain text with the code. */
    private static final class RequestError extends RuntimeException {
        private final int code;

        RequestError(int code, String message) {
            super(message);
            this.code = code;
        }
    }
}
