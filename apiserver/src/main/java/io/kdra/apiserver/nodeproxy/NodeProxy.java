package io.kdra.apiserver.nodeproxy;

import io.kdra.apiserver.api.ApiException;
import io.kdra.apiserver.api.ResourceType;
import io.kdra.apiserver.json.Json;
import io.kdra.apiserver.registry.Registry;
import io.kdra.kube.stream.ExecProtocols;
import io.kdra.kube.stream.PortForwardProtocols;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.http.UpgradeRejectedException;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketClientOptions;
import io.vertx.core.http.WebSocketConnectOptions;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Serves the pod subresources that kube-apiserver forwards to the pod's kubelet: {@code pods/log} as a streamed
 * HTTP GET of the kubelet's {@code /containerLogs}, {@code pods/exec} and {@code pods/portforward} as WebSockets joined
 * to the kubelet's {@code /exec} and {@code /portForward}. The pod, its container and its node are checked here with
 * kube-apiserver's messages; what the kubelet answers is passed on.
 */
public final class NodeProxy {

    /** The exec subprotocols served, preferred first: those kubectl 1.32 (v5) and fabric8 (v4) ask for. */

    private static final Logger LOG = LoggerFactory.getLogger(NodeProxy.class);
    private static final int CONNECT_TIMEOUT_MILLIS = 30_000;
    /** Each log being followed and each exec holds a connection to the node for as long as it lasts. */
    private static final int MAX_STREAMS_PER_NODE = 1024;
    /** As much of a failed kubelet answer as is read into an error, like kube-apiserver's response checker. */
    private static final int MAX_ERROR_BYTES = 50_000;

    private final Registry registry;
    private final ResourceType pods;
    private final ResourceType nodes;
    private final HttpClient http;
    private final WebSocketClient webSockets;

    public NodeProxy(Vertx vertx, Registry registry) {
        this.registry = registry;
        this.pods = registry.kinds().find("", "v1", "pods").orElseThrow();
        this.nodes = registry.kinds().find("", "v1", "nodes").orElseThrow();
        this.http = vertx.createHttpClient(new HttpClientOptions().setConnectTimeout(CONNECT_TIMEOUT_MILLIS),
                new PoolOptions().setHttp1MaxSize(MAX_STREAMS_PER_NODE));
        this.webSockets = vertx.createWebSocketClient(new WebSocketClientOptions()
                .setConnectTimeout(CONNECT_TIMEOUT_MILLIS).setMaxConnections(MAX_STREAMS_PER_NODE)
                .setMaxFrameSize(64 * 1024 * 1024).setMaxMessageSize(64 * 1024 * 1024));
    }

    /**
     * {@code GET pods/<name>/log}: streams the container's log from its kubelet. A pod not yet on a node has an empty
     * log, as in kube-apiserver.
     *
     * @throws ApiException for a missing pod, container or node, or invalid options
     */
    public void log(HttpServerRequest request, String namespace, String name) {
        PodLogOptions options = PodLogOptions.parse(request.params(), name);
        ObjectNode pod = registry.get(pods, namespace, name);
        String container = PodContainers.choose(pod, name, options.container());
        String nodeName = Json.text(pod, "spec", "nodeName");
        if (nodeName == null || nodeName.isEmpty()) {
            request.response().putHeader("Content-Type", "text/plain").setStatusCode(200).end();
            return;
        }
        KubeletEndpoint kubelet = kubelet(nodeName);
        String uri = String.format("/containerLogs/%s/%s/%s?%s", namespace, name, container, options.kubeletQuery());
        HttpServerResponse response = request.response();
        http.request(new RequestOptions().setMethod(HttpMethod.GET).setHost(kubelet.host()).setPort(kubelet.port())
                        .setURI(uri))
                .compose(kubeletRequest -> kubeletRequest.send())
                .onSuccess(answer -> relayLog(answer, response, name))
                .onFailure(e -> fail(response, KubeletEndpoint.unavailable(kubelet.node(),
                        String.format("GET http://%s%s: %s", kubelet, uri, describe(e)))));
    }

    private void relayLog(HttpClientResponse answer, HttpServerResponse response, String name) {
        if (answer.statusCode() < 200 || answer.statusCode() > 299) {
            answer.body().onComplete(body -> fail(response, fromKubelet(answer.statusCode(),
                    body.succeeded() ? body.result() : Buffer.buffer(), name)));
            return;
        }
        response.closeHandler(closed -> answer.request().reset());
        response.setChunked(true).setStatusCode(200).putHeader("Content-Type", "text/plain");
        answer.pipeTo(response).onFailure(e -> {
            LOG.debug("streaming the log of {} ended: {}", name, e.toString());
            answer.request().reset();
        });
    }

    /**
     * {@code GET|POST pods/<name>/exec} with a WebSocket upgrade: connects to the kubelet's {@code /exec} with the
     * client's preferred subprotocol, then upgrades the client and joins the two sockets. Whatever the kubelet
     * refuses, the client gets as a Status with the kubelet's code and words.
     *
     * @throws ApiException for a missing pod, container or node, invalid options, or a request that is not a
     *     WebSocket upgrade
     */
    public void exec(HttpServerRequest request, String namespace, String name) {
        PodExecOptions options = PodExecOptions.parse(request.params());
        ObjectNode pod = registry.get(pods, namespace, name);
        String container = PodContainers.choose(pod, name, options.container());
        KubeletEndpoint kubelet = kubeletOfAssigned(pod, name);
        options.validate();
        String protocol = protocol(request);
        String uri = String.format("/exec/%s/%s/%s?%s", namespace, name, container, options.kubeletQuery());
        joinKubelet(request, kubelet, uri, protocol, name);
    }

    /**
     * {@code GET|POST pods/<name>/portforward} with a WebSocket upgrade. The kubelet's channel protocol (fabric8) is
     * joined to the kubelet's {@code /portForward} as exec is; kubectl's SPDY tunnel is served here, each forwarded
     * connection (a pair of SPDY streams) becoming one channel-protocol WebSocket to the kubelet.
     *
     * @throws ApiException for a missing pod or node, a pod not on a node, invalid ports, or a request that is no
     *     WebSocket upgrade with a served subprotocol (SPDY without the tunnel is not served)
     */
    public void portForward(HttpServerRequest request, String namespace, String name) {
        ObjectNode pod = registry.get(pods, namespace, name);
        KubeletEndpoint kubelet = kubeletOfAssigned(pod, name);
        String protocol = PortForwardProtocols.negotiate(request.getHeader("Upgrade"),
                request.headers().getAll("Sec-WebSocket-Protocol"), PortForwardProtocols.SERVED)
                .orElseThrow(() -> ApiException.badRequest(String.format(
                        "unable to upgrade connection: port forwarding needs a WebSocket with one of the "
                                + "subprotocols %s", PortForwardProtocols.SERVED)));
        String path = String.format("/portForward/%s/%s", namespace, name);
        if (protocol.equals(PortForwardProtocols.SPDY_TUNNEL)) {
            request.toWebSocket()
                    .onSuccess(client -> SpdyPortForwardTunnel.serve(client, port -> webSockets.connect(
                            new WebSocketConnectOptions().setHost(kubelet.host()).setPort(kubelet.port())
                                    .setURI(path + "?ports=" + port)
                                    .setSubProtocols(List.of(PortForwardProtocols.CHANNELS.get(0))))))
                    .onFailure(e -> LOG.debug("upgrading {} failed: {}", request.uri(), e.toString()));
            return;
        }
        List<String> ports = forwardedPorts(request.params().getAll("ports"));
        String uri = path + "?" + String.join("&", ports.stream().map(port -> "ports=" + port).toList());
        joinKubelet(request, kubelet, uri, protocol, name);
    }

    /** The kubelet of the pod's node; a pod not yet on a node has no streams to reach. */
    private KubeletEndpoint kubeletOfAssigned(ObjectNode pod, String name) {
        String nodeName = Json.text(pod, "spec", "nodeName");
        if (nodeName == null || nodeName.isEmpty()) {
            throw ApiException.badRequest(String.format("pod %s does not have a host assigned", name));
        }
        return kubelet(nodeName);
    }

    /**
     * Opens the kubelet's WebSocket at {@code uri} with the negotiated subprotocol, then upgrades the client and joins
     * the two; what the kubelet refuses reaches the client as a Status with the kubelet's code and words.
     */
    private void joinKubelet(HttpServerRequest request, KubeletEndpoint kubelet, String uri, String protocol,
            String name) {
        request.pause();
        webSockets.connect(new WebSocketConnectOptions().setHost(kubelet.host()).setPort(kubelet.port()).setURI(uri)
                        .setSubProtocols(List.of(protocol)))
                .onSuccess(node -> upgrade(request, node, protocol))
                .onFailure(e -> {
                    request.resume();
                    fail(request.response(), e instanceof UpgradeRejectedException rejected
                            ? fromKubelet(rejected.getStatus(), rejected.getBody(), name)
                            : KubeletEndpoint.unavailable(kubelet.node(),
                                    String.format("GET ws://%s%s: %s", kubelet, uri, describe(e))));
                });
    }

    /** The {@code ports} of a channel-protocol request, each repeated or comma-separated, as the kubelet reads them. */
    private static List<String> forwardedPorts(List<String> values) {
        List<String> ports = new ArrayList<>();
        for (String value : values) {
            for (String port : value.split(",")) {
                String trimmed = port.trim();
                int number;
                try {
                    number = Integer.parseInt(trimmed);
                } catch (NumberFormatException e) {
                    throw ApiException.badRequest("invalid port \"" + trimmed + "\"");
                }
                if (number < 1 || number > 65535) {
                    throw ApiException.badRequest(String.format("port %d must be > 0 and < 65536", number));
                }
                ports.add(trimmed);
            }
        }
        if (ports.isEmpty()) {
            throw ApiException.badRequest("query parameter \"ports\" is required");
        }
        return ports;
    }

    private static void upgrade(HttpServerRequest request, WebSocket node, String protocol) {
        if (!protocol.equals(node.subProtocol())) {
            node.close();
            request.resume();
            fail(request.response(), ApiException.of(502, "BadGateway", String.format(
                    "the kubelet chose the subprotocol %s instead of %s", node.subProtocol(), protocol), null));
            return;
        }
        WebSocketPipe pipe = WebSocketPipe.hold(node);
        request.toWebSocket().onSuccess(pipe::join).onFailure(e -> {
            LOG.debug("upgrading {} failed: {}", request.uri(), e.toString());
            pipe.abandon();
        });
    }

    /**
     * @return the first subprotocol the client offers that is served
     * @throws ApiException 400 for a request that is no WebSocket upgrade (SPDY is not served) or offers none
     */
    private static String protocol(HttpServerRequest request) {
        try {
            return ExecProtocols.negotiate(request.getHeader("Upgrade"),
                    request.headers().getAll("Sec-WebSocket-Protocol"));
        } catch (ExecProtocols.UnsupportedUpgradeException e) {
            throw ApiException.badRequest(e.getMessage());
        }
    }

    private KubeletEndpoint kubelet(String nodeName) {
        return KubeletEndpoint.of(nodeName, registry.get(nodes, null, nodeName));
    }

    /**
     * A kubelet's refusal as the client's Status: the kubelet's code, its words as the message (its JSON Status's
     * message when it sent one), as kube-apiserver's response checker builds it.
     */
    private static ApiException fromKubelet(int code, Buffer body, String name) {
        Buffer head = body.length() > MAX_ERROR_BYTES ? body.getBuffer(0, MAX_ERROR_BYTES) : body;
        String text = head.toString(StandardCharsets.UTF_8).trim();
        if (text.startsWith("{")) {
            try {
                JsonNode status = Json.parse(head.getBytes());
                if (status.path("message").isString()) {
                    text = status.path("message").asString();
                }
            } catch (RuntimeException notJson) {
                // the kubelet's words are shown as they came
            }
        }
        if (text.isEmpty()) {
            text = String.format("the kubelet answered %d for pod %s", code, name);
        }
        return switch (code) {
            case 400 -> ApiException.badRequest(text);
            case 404 -> ApiException.of(404, "NotFound", text, null);
            case 500 -> ApiException.internal(text);
            default -> ApiException.of(code, code == 422 ? "Invalid" : null, text, null);
        };
    }

    private static void fail(HttpServerResponse response, ApiException error) {
        if (response.ended() || response.closed() || response.headWritten()) {
            return;
        }
        response.setStatusCode(error.code()).putHeader("Content-Type", "application/json")
                .end(Buffer.buffer(Json.bytes(error.status())));
    }

    private static String describe(Throwable e) {
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }

    public void close() {
        http.close();
        webSockets.close();
    }
}
