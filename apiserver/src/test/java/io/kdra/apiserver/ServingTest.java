package io.kdra.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.kdra.apiserver.json.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;

class ServingTest extends ServerTestBase {

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    /**
     * kube-apiserver lets anonymous requests read these paths (the system:public-info-viewer role is bound to
     * system:unauthenticated); this server serves them before authentication, so no token is needed either.
     */
    @ParameterizedTest
    @ValueSource(strings = {"/healthz", "/livez", "/readyz"})
    void healthChecksAnswerOkWithoutAToken(String path) {
        HttpResponse<String> anonymous = anonymousGet(fixture.server, path);
        assertThat(anonymous.statusCode()).isEqualTo(200);
        assertThat(anonymous.body()).isEqualTo("ok");
        assertThat(anonymous.headers().firstValue("Content-Type")).hasValue("text/plain; charset=utf-8");

        HttpResponse<String> admin = fixture.send("GET", path, null, null);
        assertThat(admin.statusCode()).isEqualTo(200);
        assertThat(admin.body()).isEqualTo("ok");
    }

    @Test
    void resourcesNeedAToken() {
        HttpResponse<String> anonymous = anonymousGet(fixture.server, "/api/v1/namespaces");
        assertThat(anonymous.statusCode()).isEqualTo(401);
        assertThat(anonymous.body()).contains("\"reason\":\"Unauthorized\"");
    }

    @Test
    void versionIsTheDefaultKubernetesVersionWithoutAToken() {
        HttpResponse<String> response = anonymousGet(fixture.server, "/version");
        assertThat(response.statusCode()).isEqualTo(200);
        JsonNode version = Json.parse(response.body().getBytes(StandardCharsets.UTF_8));
        assertThat(Json.text(version, "gitVersion")).isEqualTo("v1.34.0");
        assertThat(Json.text(version, "major")).isEqualTo("1");
        assertThat(Json.text(version, "minor")).isEqualTo("34");
        assertThat(fixture.client.getKubernetesVersion().getGitVersion()).isEqualTo("v1.34.0");
    }

    @Test
    void versionFollowsTheConfiguredKubernetesVersion() {
        try (ServerFixture other = new ServerFixture(ApiServerConfig.defaults().withKubernetesVersion("1.36"))) {
            JsonNode version = Json.parse(anonymousGet(other.server, "/version").body()
                    .getBytes(StandardCharsets.UTF_8));
            assertThat(Json.text(version, "gitVersion")).isEqualTo("v1.36.0");
            assertThat(Json.text(version, "major")).isEqualTo("1");
            assertThat(Json.text(version, "minor")).isEqualTo("36");
            assertThat(Json.text(version, "emulationMinor")).isEqualTo("36");
        }
    }

    @Test
    void portZeroPicksAFreePort() {
        assertThat(fixture.server.port()).isPositive();
        assertThat(fixture.server.url()).isEqualTo("http://127.0.0.1:" + fixture.server.port());
    }

    @Test
    void listensOnTheConfiguredPort() {
        int port = freePort();
        try (ServerFixture fixed = new ServerFixture(ApiServerConfig.defaults().withPort(port))) {
            assertThat(fixed.server.port()).isEqualTo(port);
            assertThat(fixed.server.url()).isEqualTo("http://127.0.0.1:" + port);
            assertThat(anonymousGet(fixed.server, "/healthz").body()).isEqualTo("ok");
        }
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static HttpResponse<String> anonymousGet(ApiServer server, String path) {
        try {
            return HTTP.send(HttpRequest.newBuilder(URI.create(server.url() + path)).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
