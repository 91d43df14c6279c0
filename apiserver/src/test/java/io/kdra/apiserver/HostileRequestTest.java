package io.kdra.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Requests a hostile or careless client sends: each gets a Status naming the problem, promptly, and the server goes
 * on serving. Every case here hung, crashed a request thread or answered 500 before.
 */
class HostileRequestTest {

    private static final String CONFIGMAPS = "/api/v1/namespaces/default/configmaps";
    private static final Duration PROMPTLY = Duration.ofSeconds(20);

    private static ServerFixture fixture;

    @BeforeAll
    static void start() {
        fixture = new ServerFixture(ApiServer.builder().connectionTimeouts(Duration.ofSeconds(1),
                Duration.ofSeconds(1)).build());
    }

    @AfterAll
    static void stop() {
        fixture.close();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "resourceVersion=abc | resourceVersion: Invalid value: \\\"abc\\\": strconv.ParseUint: parsing \\\"abc\\\": invalid syntax",
        "resourceVersion=-1 | resourceVersion: Invalid value: \\\"-1\\\": strconv.ParseUint: parsing \\\"-1\\\": invalid syntax",
        "labelSelector=a%3D%3D%3Db | unable to parse requirement",
        "fieldSelector=spec.nope%3Dx | field label not supported: spec.nope",
        "timeoutSeconds=abc | invalid value for timeoutSeconds: \\\"abc\\\" is not an integer"})
    void aWatchWithABadParameterIsABadRequestAsAListIs(String parameter, String message) {
        for (String query : new String[] {"?watch=1&" + parameter, "?" + parameter}) {
            HttpResponse<String> response = get(CONFIGMAPS + query);

            assertThat(response.statusCode()).as(query).isEqualTo(400);
            assertThat(response.body()).as(query).contains("\"kind\":\"Status\"", "\"reason\":\"BadRequest\"", message);
        }
    }

    @Test
    void aWatchEndsAfterItsTimeoutSeconds() {
        HttpResponse<String> response = get(CONFIGMAPS + "?watch=1&timeoutSeconds=1");

        assertThat(response.statusCode()).isEqualTo(200);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "labelSelector=%zz | invalid query string \\\"labelSelector=%zz\\\"",
        "watch=%e0%a4%a | invalid query string",
        "limit=% | invalid query string"})
    void aBadPercentEscapeInTheQueryIsABadRequest(String query, String message) throws IOException {
        String response = raw("GET " + CONFIGMAPS + "?" + query + " HTTP/1.1\r\nHost: localhost\r\nAuthorization: "
                + "Bearer " + fixture.server.adminToken() + "\r\n\r\n");

        assertThat(response).startsWith("HTTP/1.1 400 ").contains("\"reason\":\"BadRequest\"", message);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "application/json | 501 | Document nesting depth (501) exceeds the maximum allowed (500",
        "application/json | 100000 | Document nesting depth (501) exceeds the maximum allowed (500",
        "application/yaml | 501 | error converting YAML to JSON: yaml: exceeded max depth of 500",
        "application/yaml | 1000 | error converting YAML to JSON: yaml: exceeded max depth of 500",
        "application/yaml | 100000 | error converting YAML to JSON: yaml: exceeded max depth of 500"})
    void aDeeplyNestedBodyIsABadRequest(String contentType, int depth, String message) {
        String body = "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"deep\"},\"x\":"
                + "[".repeat(depth) + "]".repeat(depth) + "}";
        if (contentType.endsWith("yaml")) {
            // flow sequences, not JSON: the YAML reader must take it
            body = "kind: ConfigMap\nx: " + "[".repeat(depth) + "]".repeat(depth) + "\n";
        }

        HttpResponse<String> response = fixture.send("POST", CONFIGMAPS, contentType, body);

        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(response.body()).contains("\"reason\":\"BadRequest\"", message);
        assertThat(get("/readyz").statusCode()).isEqualTo(200);
    }

    @Test
    void aDeeplyNestedBlockYamlBodyIsABadRequest() {
        StringBuilder yaml = new StringBuilder("kind: ConfigMap\n");
        for (int level = 0; level < 600; level++) {
            yaml.append(" ".repeat(level)).append("k").append(level).append(":\n");
        }
        yaml.append(" ".repeat(600)).append("v\n");

        HttpResponse<String> response = fixture.send("POST", CONFIGMAPS, "application/yaml", yaml.toString());

        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(response.body()).contains("yaml: exceeded max depth of 500");
    }

    @Test
    void aLongSelectorIsServedAndAnOverlongUriIs414WithAStatus() throws IOException {
        String longSelector = "a%20notin%20(" + "v,".repeat(30_000) + "w)";
        HttpResponse<String> served = get(CONFIGMAPS + "?labelSelector=" + longSelector);
        assertThat(served.statusCode()).isEqualTo(200);

        String response = raw("GET " + CONFIGMAPS + "?labelSelector=" + "x".repeat(1100 * 1024) + " HTTP/1.1\r\n"
                + "Host: localhost\r\n\r\n");

        assertThat(response).startsWith("HTTP/1.0 414 ").contains("\"kind\":\"Status\"",
                "\"reason\":\"RequestURITooLong\"", "the request URI is longer than the limit of 1048576 bytes");
    }

    @Test
    void overlongHeadersAre431WithAStatus() throws IOException {
        String response = raw("GET " + CONFIGMAPS + " HTTP/1.1\r\nHost: localhost\r\nX-Big: " + "x".repeat(1100 * 1024)
                + "\r\n\r\n");

        assertThat(response).startsWith("HTTP/1.1 431 ").contains("\"reason\":\"RequestHeaderFieldsTooLarge\"",
                "the request headers are larger than the limit of 1048576 bytes");
    }

    @Test
    void anIdleKeptAliveConnectionAndAHalfSentNextRequestAreClosed() throws IOException {
        String ready = "GET /readyz HTTP/1.1\r\nHost: localhost\r\n\r\n";
        assertThat(raw(ready)).startsWith("HTTP/1.1 200 ").endsWith("ok");
        assertThat(raw(ready + "GET " + CONFIGMAPS + " HTTP/1.1\r\nHost: localho")).startsWith("HTTP/1.1 200 ")
                .endsWith("ok");
    }

    @Test
    void aConnectionWhoseFirstRequestNeverCompletesItsHeadersIsClosed() throws IOException {
        assertThat(raw("GET /readyz HTTP/1.1\r\nHost: localho")).isEmpty();
    }

    @Test
    void aHalfSentBodyGetsATimeoutAndTheConnectionCloses() throws IOException {
        String response = raw("POST " + CONFIGMAPS + " HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer "
                + fixture.server.adminToken() + "\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n"
                + "{\"kind\":");

        assertThat(response).startsWith("HTTP/1.1 504 ").containsIgnoringCase("connection: close")
                .contains("\"reason\":\"Timeout\"", "the request body did not arrive within 1000 ms");
    }

    @Test
    void aQuietWatchOutlivesTheIdleTimeout() throws Exception {
        String ns = fixture.namespace();
        HttpResponse<InputStream> watch = fixture.http.send(HttpRequest.newBuilder(URI.create(fixture.server.url()
                + "/api/v1/namespaces/" + ns + "/configmaps?watch=1")).header("Authorization", "Bearer "
                + fixture.server.adminToken()).build(), HttpResponse.BodyHandlers.ofInputStream());
        Thread.sleep(2500);

        fixture.send("POST", "/api/v1/namespaces/" + ns + "/configmaps", "application/json",
                "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"late\"}}");

        try (InputStream events = watch.body()) {
            String first = new String(events.readNBytes(20), StandardCharsets.UTF_8);
            assertThat(first).startsWith("{\"type\":\"ADDED\"");
        }
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "a b | data[a b]: Invalid value: \\\"a b\\\": a valid config key must consist of alphanumeric characters",
        ".. | data[..]: Invalid value: \\\"..\\\": must not be '..'",
        "..x | data[..x]: Invalid value: \\\"..x\\\": must not start with '..'",
        "a/b | data[a/b]: Invalid value: \\\"a/b\\\": a valid config key"})
    void configMapKeysAreValidated(String key, String message) {
        HttpResponse<String> response = fixture.send("POST", CONFIGMAPS, "application/json",
                "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"generateName\":\"keys-\"},"
                        + "\"data\":{\"" + key + "\":\"v\"}}");

        assertThat(response.statusCode()).isEqualTo(422);
        assertThat(response.body()).contains("\"reason\":\"Invalid\"", message);
    }

    @Test
    void aConfigMapKeyInBothMapsIsInvalid() {
        HttpResponse<String> response = fixture.send("POST", CONFIGMAPS, "application/json",
                "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"both\"},"
                        + "\"data\":{\"k\":\"v\"},\"binaryData\":{\"k\":\"dg==\"}}");

        assertThat(response.statusCode()).isEqualTo(422);
        assertThat(response.body()).contains("data[k]: Invalid value: \\\"k\\\": duplicate of key present in binaryData");
    }

    private static HttpResponse<String> get(String path) {
        try {
            return fixture.http.send(HttpRequest.newBuilder(URI.create(fixture.server.url() + path))
                    .header("Authorization", "Bearer " + fixture.server.adminToken()).timeout(PROMPTLY).build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Sends bytes on a new connection and reads until the server closes it. */
    private static String raw(String request) throws IOException {
        URI url = URI.create(fixture.server.url());
        try (Socket socket = new Socket(url.getHost(), url.getPort())) {
            socket.setSoTimeout((int) PROMPTLY.toMillis());
            OutputStream out = socket.getOutputStream();
            out.write(request.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            return new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
