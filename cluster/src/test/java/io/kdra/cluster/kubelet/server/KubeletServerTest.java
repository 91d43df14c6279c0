package io.kdra.cluster.kubelet.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.UpgradeRejectedException;
import io.vertx.core.http.WebSocketClient;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The kubelet's endpoints over real HTTP and WebSockets, with containers that are real processes. */
class KubeletServerTest {

    private static final String V5 = "v5.channel.k8s.io";
    private static final String V4 = "v4.channel.k8s.io";
    private static final String SUCCESS = "{\"metadata\":{},\"status\":\"Success\"}";

    private static Vertx vertx;
    private static ProcessStreams streams;
    private static KubeletServer server;
    private static int port;
    private static WebSocketClient webSockets;
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @BeforeAll
    static void start() {
        vertx = Vertx.vertx();
        streams = new ProcessStreams();
        server = new KubeletServer(vertx, streams, () -> "dra_resource_claims_in_use{driver_name=\"\"} 0\n");
        port = server.start();
        webSockets = vertx.createWebSocketClient();
    }

    @AfterAll
    static void stop() {
        server.close();
        vertx.close().await();
    }

    @AfterEach
    void killProcesses() {
        streams.destroyAll();
    }

    @Test
    void healthAndMetrics() throws Exception {
        assertThat(get("/healthz").body()).isEqualTo("ok");
        HttpResponse<String> metrics = get("/metrics");
        assertThat(metrics.headers().firstValue("Content-Type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("text/plain; version=0.0.4"));
        assertThat(metrics.body()).contains("dra_resource_claims_in_use");
        assertThat(get("/pods").statusCode()).isEqualTo(404);
    }

    @Test
    void logsWholeTailAndLimited() throws Exception {
        HttpResponse<String> all = get("/containerLogs/ns/pod/main");
        assertThat(all.statusCode()).isEqualTo(200);
        assertThat(all.headers().firstValue("Content-Type")).hasValue("text/plain");
        assertThat(all.body()).isEqualTo("one\ntwo\nthree\n");

        assertThat(get("/containerLogs/ns/pod/main?tailLines=2").body()).isEqualTo("two\nthree\n");
        assertThat(streams.logRequests.get(streams.logRequests.size() - 1).tailLines()).isEqualTo(2);

        assertThat(get("/containerLogs/ns/pod/main?limitBytes=5").body()).isEqualTo("one\nt");

        get("/containerLogs/ns/pod/main?timestamps=true&sinceSeconds=60");
        LogOptions passed = streams.logRequests.get(streams.logRequests.size() - 1);
        assertThat(passed.timestamps()).isTrue();
        assertThat(passed.sinceTime()).isNotNull();
        assertThat(passed.limitBytes()).isEqualTo(-1);
    }

    @Test
    void logErrorsAreTextWithTheKubeletsCodes() throws Exception {
        HttpResponse<String> previous = get("/containerLogs/ns/pod/main?previous=true");
        assertThat(previous.statusCode()).isEqualTo(400);
        assertThat(previous.body()).isEqualTo("previous terminated container \"main\" in pod \"pod\" not found");

        HttpResponse<String> unknown = get("/containerLogs/ns/pod/nope");
        assertThat(unknown.statusCode()).isEqualTo(404);
        assertThat(unknown.body()).isEqualTo("container \"nope\" not found in pod \"pod\"");

        HttpResponse<String> negative = get("/containerLogs/ns/pod/main?tailLines=-1");
        assertThat(negative.statusCode()).isEqualTo(422);
        assertThat(negative.body()).contains("tailLines: Invalid value: -1: must be greater than or equal to 0");

        assertThat(get("/containerLogs/ns/pod/main?limitBytes=abc").statusCode()).isEqualTo(400);
        assertThat(get("/containerLogs/ns/pod").statusCode()).isEqualTo(404);
        assertThat(send("POST", "/containerLogs/ns/pod/main").statusCode()).isEqualTo(405);
    }

    @Test
    void followStreamsUntilTheContainerStops() throws Exception {
        HttpResponse<InputStream> response = HTTP.send(request("GET", "/containerLogs/ns/pod/follower?follow=true"),
                HttpResponse.BodyHandlers.ofInputStream());
        assertThat(response.statusCode()).isEqualTo(200);
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(response.body(),
                StandardCharsets.UTF_8))) {
            assertThat(lines.readLine()).isEqualTo("first");
            // the container is still running: what it prints next arrives while following
            try (OutputStream stdin = streams.last().getOutputStream()) {
                stdin.write("second\n".getBytes(StandardCharsets.UTF_8));
            }
            assertThat(lines.readLine()).isEqualTo("second");
            assertThat(lines.readLine()).isNull();
        }
    }

    @Test
    void execOverV5WithStdoutStderrAndSuccess() throws Exception {
        ChannelClient exec = ChannelClient.connect(vertx, webSockets, port,
                "/exec/ns/pod/main?output=1&error=1&command=sh&command=-c&command=echo+out%3B+echo+err+%3E%262", V5);
        assertThat(exec.protocol()).isEqualTo(V5);
        assertThat(exec.awaitClose()).isEqualTo((short) 1000);
        assertThat(exec.stdout()).isEqualTo("out\n");
        assertThat(exec.stderr()).isEqualTo("err\n");
        assertThat(exec.status()).isEqualTo(SUCCESS);
    }

    @Test
    void execOverV4ReportsTheExitCode() throws Exception {
        ChannelClient exec = ChannelClient.connect(vertx, webSockets, port,
                "/exec/ns/pod/main?output=1&command=sh&command=-c&command=echo+bye%3B+exit+3", V4);
        assertThat(exec.protocol()).isEqualTo(V4);
        assertThat(exec.awaitClose()).isEqualTo((short) 1000);
        assertThat(exec.stdout()).isEqualTo("bye\n");
        assertThat(exec.status()).contains("\"status\":\"Failure\"", "\"reason\":\"NonZeroExitCode\"",
                "\"causes\":[{\"reason\":\"ExitCode\",\"message\":\"3\"}]");
    }

    @Test
    void stdinIsPipedAndClosedByTheV5CloseSignal() throws Exception {
        ChannelClient exec = ChannelClient.connect(vertx, webSockets, port,
                "/exec/ns/pod/main?input=1&output=1&error=1&command=cat", V5);
        exec.send(0, "hello ");
        exec.send(0, "world");
        exec.closeStdin();
        assertThat(exec.awaitClose()).isEqualTo((short) 1000);
        assertThat(exec.stdout()).isEqualTo("hello world");
        assertThat(exec.status()).isEqualTo(SUCCESS);
    }

    @Test
    void withoutStdinTheCommandReadsEndOfFile() throws Exception {
        ChannelClient exec = ChannelClient.connect(vertx, webSockets, port, "/exec/ns/pod/main?output=1&command=cat",
                V4);
        assertThat(exec.awaitClose()).isEqualTo((short) 1000);
        assertThat(exec.status()).isEqualTo(SUCCESS);
    }

    @Test
    void aCommandThatCannotStartFailsOnTheErrorChannel() throws Exception {
        ChannelClient exec = ChannelClient.connect(vertx, webSockets, port,
                "/exec/ns/pod/main?output=1&command=/no/such/command", V5);
        assertThat(exec.awaitClose()).isEqualTo((short) 1000);
        assertThat(exec.status()).contains("\"status\":\"Failure\"", "\"reason\":\"InternalError\"",
                "error executing command in container", "/no/such/command");
    }

    @Test
    void badExecRequestsAreRefusedBeforeTheUpgrade() {
        assertRejected("/exec/ns/pod/nope?output=1&command=env", V5, 404, "container \"nope\" not found in pod \"pod\"");
        assertRejected("/exec/ns/pod/main?output=1", V5, 400, "you must specify at least one command for the container");
        assertRejected("/exec/ns/pod/main?command=env", V5, 400, "you must specify at least 1 of stdin, stdout, stderr");
        assertRejected("/exec/ns/pod/main?output=1&tty=1&command=env", V5, 400, "tty is not supported");
        assertRejected("/exec/ns/pod/main?output=1&command=env", "base64.channel.k8s.io", 400,
                "requested protocol(s) are not supported: [base64.channel.k8s.io]");
    }

    @Test
    void execWithoutWebSocketIsRefused() throws Exception {
        HttpResponse<String> plain = send("POST", "/exec/ns/pod/main?output=1&command=env");
        assertThat(plain.statusCode()).isEqualTo(400);
        assertThat(plain.body()).isEqualTo("Upgrade request required");
    }

    @Test
    void garbageFramesAreIgnoredAndTheServerKeepsWorking() throws Exception {
        ChannelClient exec = ChannelClient.connect(vertx, webSockets, port,
                "/exec/ns/pod/main?input=1&output=1&command=cat", V5);
        exec.sendText("not a channel message");
        exec.sendRaw(Buffer.buffer());
        exec.sendRaw(Buffer.buffer(new byte[] {9, 1, 2, 3}));
        exec.sendRaw(Buffer.buffer(new byte[] {4, '{', 'x'}));
        exec.sendRaw(Buffer.buffer(new byte[] {(byte) 255}));
        exec.sendRaw(Buffer.buffer(new byte[] {(byte) 255, 7}));
        exec.send(0, "still here");
        exec.closeStdin();
        assertThat(exec.awaitClose()).isEqualTo((short) 1000);
        assertThat(exec.stdout()).isEqualTo("still here");
        assertThat(get("/healthz").body()).isEqualTo("ok");
    }

    @Test
    void aClientThatGoesAwayEndsTheCommandAndTheFollowing() throws Exception {
        ChannelClient exec = ChannelClient.connect(vertx, webSockets, port,
                "/exec/ns/pod/main?input=1&output=1&command=sh&command=-c&command=echo+started%3B+exec+sleep+600", V5);
        await().atMost(Duration.ofSeconds(30)).until(() -> exec.stdout().equals("started\n"));
        Process command = streams.last();
        exec.disconnect();
        await().atMost(Duration.ofSeconds(30)).until(() -> !command.isAlive());

        try (Socket follow = new Socket("127.0.0.1", port)) {
            follow.setSoTimeout(30_000);
            follow.getOutputStream().write("GET /containerLogs/ns/pod/follower?follow=1 HTTP/1.1\r\nHost: x\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
            BufferedReader answer = new BufferedReader(new InputStreamReader(follow.getInputStream(),
                    StandardCharsets.US_ASCII));
            String line;
            do {
                line = answer.readLine();
            } while (line != null && !line.equals("first"));
            assertThat(line).isEqualTo("first");
        }
        Process follower = streams.last();
        await().atMost(Duration.ofSeconds(30)).until(() -> !follower.isAlive());
        assertThat(get("/containerLogs/ns/pod/main").body()).isEqualTo("one\ntwo\nthree\n");
    }

    private void assertRejected(String uri, String protocol, int code, String message) {
        assertThatThrownBy(() -> ChannelClient.connect(vertx, webSockets, port, uri, protocol))
                .isInstanceOfSatisfying(UpgradeRejectedException.class, rejected -> {
                    assertThat(rejected.getStatus()).isEqualTo(code);
                    assertThat(rejected.getBody().toString()).contains(message);
                });
    }

    private static HttpResponse<String> get(String path) throws Exception {
        return send("GET", path);
    }

    private static HttpResponse<String> send(String method, String path) throws Exception {
        return HTTP.send(request(method, path), HttpResponse.BodyHandlers.ofString());
    }

    private static HttpRequest request(String method, String path) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .method(method, HttpRequest.BodyPublishers.noBody()).build();
    }
}
