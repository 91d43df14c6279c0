package io.kdra.apiserver.memory;

import static org.assertj.core.api.Assertions.assertThat;

import io.kdra.apiserver.ApiServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** After an OutOfMemoryError the request gets an answer and the health endpoints fail rather than report ok. */
class FatalErrorTest {

    @Test
    void anOutOfMemoryErrorFailsTheRequestAndTheHealthEndpoints() throws Exception {
        try (ApiServer server = ApiServer.builder().admission(request -> {
            if (request.name().equals("too-big")) {
                throw new OutOfMemoryError("Java heap space");
            }
        }).build().start()) {
            HttpClient http = HttpClient.newHttpClient();
            assertThat(get(http, server, "/readyz").statusCode()).isEqualTo(200);

            HttpResponse<String> write = http.send(HttpRequest.newBuilder(URI.create(server.url()
                    + "/api/v1/namespaces/default/configmaps")).header("Authorization", "Bearer " + server.adminToken())
                    .header("Content-Type", "application/json").timeout(Duration.ofSeconds(30))
                    .POST(HttpRequest.BodyPublishers.ofString("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\","
                            + "\"metadata\":{\"name\":\"too-big\"}}")).build(), HttpResponse.BodyHandlers.ofString());

            assertThat(write.statusCode()).isEqualTo(500);
            assertThat(write.body()).contains("the API server is broken: java.lang.OutOfMemoryError: Java heap space");
            for (String path : new String[] {"/readyz", "/livez", "/healthz"}) {
                HttpResponse<String> health = get(http, server, path);
                assertThat(health.statusCode()).isEqualTo(500);
                assertThat(health.body()).contains("[-]server failed: java.lang.OutOfMemoryError: Java heap space",
                        path.substring(1) + " check failed");
            }
        }
    }

    private static HttpResponse<String> get(HttpClient http, ApiServer server, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(server.url() + path)).timeout(Duration.ofSeconds(30))
                .build(), HttpResponse.BodyHandlers.ofString());
    }
}
