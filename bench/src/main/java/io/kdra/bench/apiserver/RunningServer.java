package io.kdra.bench.apiserver;

import io.kdra.apiserver.ApiServer;
import io.kdra.apiserver.ApiServerConfig;
import java.net.URI;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A started API server and keep-alive HTTP/1.1 connections holding its admin token, one per calling thread. */
final class RunningServer implements AutoCloseable {

    final ApiServer server;
    private final List<HttpConnection> connections = new CopyOnWriteArrayList<>();
    private final ThreadLocal<HttpConnection> connection = ThreadLocal.withInitial(this::connect);

    RunningServer() {
        this(ApiServerConfig.defaults());
    }

    RunningServer(ApiServerConfig config) {
        server = ApiServer.builder().config(config).build().start();
    }

    /** @return a new connection, closed with the server */
    HttpConnection connect() {
        URI url = URI.create(server.url());
        HttpConnection opened = new HttpConnection(url.getHost(), url.getPort(), server.adminToken());
        connections.add(opened);
        return opened;
    }

    /** Sends on the calling thread's connection. */
    HttpConnection.Response send(String method, String path, String body) {
        return send(method, path, "application/json", body);
    }

    /** Sends on the calling thread's connection a body of the given media type. */
    HttpConnection.Response send(String method, String path, String contentType, String body) {
        HttpConnection.Response response = connection.get().send(method, path, contentType, body);
        if (response.status() >= 300) {
            throw new IllegalStateException(method + " " + path + " answered " + response.status() + ": "
                    + response.text());
        }
        return response;
    }

    static String configMap(String name) {
        return "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"" + name
                + "\",\"labels\":{\"app\":\"bench\"}},\"data\":{\"key\":\"value\"}}";
    }

    static String pod(String name) {
        return "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"" + name
                + "\",\"labels\":{\"app\":\"bench\"}},\"spec\":{\"nodeName\":\"node-1\",\"containers\":[{\"name\":"
                + "\"main\",\"image\":\"busybox\",\"resources\":{\"claims\":[{\"name\":\"gpu\"}]}}],\"resourceClaims\":"
                + "[{\"name\":\"gpu\",\"resourceClaimName\":\"" + name + "-gpu\"}]}}";
    }

    @Override
    public void close() {
        connections.forEach(HttpConnection::close);
        server.close();
    }
}
