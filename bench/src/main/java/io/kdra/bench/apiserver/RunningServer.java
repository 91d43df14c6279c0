package io.kdra.bench.apiserver;

import io.kdra.apiserver.ApiServer;
import io.kdra.apiserver.ApiServerConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

/** A started API server and an HTTP client holding its admin token, for the benchmarks. */
final class RunningServer implements AutoCloseable {

    final ApiServer server = ApiServer.builder().config(ApiServerConfig.defaults()).build().start();
    final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    HttpResponse<String> send(String method, String path, String body) {
        HttpRequest request = HttpRequest.newBuilder(URI.create(server.url() + path))
                .header("Authorization", "Bearer " + server.adminToken())
                .header("Content-Type", "application/json")
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body))
                .build();
        try {
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() >= 300) {
                throw new IllegalStateException(method + " " + path + " answered " + response.statusCode() + ": "
                        + response.body());
            }
            return response;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
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
        server.close();
    }
}
