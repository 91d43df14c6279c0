package io.kdra.apiserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.dsl.ExecWatch;
import io.kdra.apiserver.json.Json;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.UpgradeRejectedException;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketConnectOptions;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** pods/log and pods/exec forwarded to a node's kubelet, over real HTTP and WebSockets. */
class PodStreamsTest {

    private static final String V5 = "v5.channel.k8s.io";
    private static final String V4 = "v4.channel.k8s.io";
    private static final String SUCCESS = "{\"metadata\":{},\"status\":\"Success\"}";

    private static ServerFixture fixture;
    private static Vertx vertx;
    private static FakeKubelet kubelet;
    private static WebSocketClient webSockets;
    private static String ns;

    @BeforeAll
    static void start() throws Exception {
        fixture = new ServerFixture();
        vertx = Vertx.vertx();
        kubelet = new FakeKubelet(vertx);
        int kubeletPort = kubelet.start();
        int closedPort;
        try (ServerSocket unused = new ServerSocket(0)) {
            closedPort = unused.getLocalPort();
        }
        webSockets = vertx.createWebSocketClient();
        ns = fixture.namespace();
        StreamingPods.create(fixture.client, ns, kubeletPort, closedPort);
    }

    @AfterAll
    static void stop() {
        kubelet.close();
        vertx.close().await();
        fixture.close();
    }

    @Test
    void discoveryListsLogAndExec() {
        JsonNode resources = Json.parse(fixture.send("GET", "/api/v1", null, null).body()
                .getBytes(StandardCharsets.UTF_8)).path("resources");
        Map<String, String> verbs = new ConcurrentHashMap<>();
        resources.forEach(resource -> verbs.put(resource.path("name").asString(), resource.path("verbs").toString()));
        assertThat(verbs).containsEntry("pods/log", "[\"get\"]").containsEntry("pods/exec", "[\"create\",\"get\"]");
    }

    @Test
    void logIsForwardedToTheKubelet() {
        HttpResponse<String> log = get("single/log");
        assertThat(log.statusCode()).isEqualTo(200);
        assertThat(log.headers().firstValue("Content-Type")).hasValue("text/plain");
        assertThat(log.body()).isEqualTo("main 1\nmain 2\nmain 3\n");
        assertThat(kubelet.requests).contains("/containerLogs/" + ns + "/single/main?");

        assertThat(get("single/log?tailLines=2&timestamps=true&limitBytes=100").body()).isEqualTo("main 2\nmain 3\n");
        assertThat(kubelet.requests).contains("/containerLogs/" + ns + "/single/main?timestamps=true&tailLines=2"
                + "&limitBytes=100");
        assertThat(get("multi/log?container=sidecar").body()).isEqualTo("sidecar log\n");
        assertThat(get("single/log?previous=true").body()).isEqualTo("main before restart\n");
        assertThat(get("single/log?sinceTime=2026-01-02T03:04:05.678Z").statusCode()).isEqualTo(200);
        assertThat(kubelet.requests).contains("/containerLogs/" + ns + "/single/main?sinceTime=2026-01-02T03%3A04%3A05Z");
    }

    @Test
    void aPodOnNoNodeHasAnEmptyLog() {
        HttpResponse<String> log = get("pending/log");
        assertThat(log.statusCode()).isEqualTo(200);
        assertThat(log.body()).isEmpty();
    }

    @Test
    void badLogRequests() {
        assertStatus(get("nope/log"), 404, "NotFound", "pods \"nope\" not found");
        assertStatus(get("multi/log"), 400, "BadRequest",
                "a container name must be specified for pod multi, choose one of: [init main sidecar]");
        assertStatus(get("multi/log?container=nope"), 400, "BadRequest", "container nope is not valid for pod multi");
        assertStatus(get("single/log?tailLines=-1"), 422, "Invalid",
                "PodLogOptions \"single\" is invalid: tailLines: Invalid value: -1: must be greater than or equal to 0");
        assertStatus(get("single/log?limitBytes=0"), 422, "Invalid",
                "limitBytes: Invalid value: 0: must be greater than 0");
        assertStatus(get("single/log?sinceSeconds=0"), 422, "Invalid",
                "sinceSeconds: Invalid value: 0: must be greater than 0");
        assertStatus(get("single/log?sinceSeconds=5&sinceTime=2026-01-01T00:00:00Z"), 422, "Invalid",
                "at most one of `sinceTime` or `sinceSeconds` may be specified");
        assertStatus(get("single/log?tailLines=ten"), 400, "BadRequest", "invalid value for tailLines");
        assertStatus(get("single/log?sinceTime=yesterday"), 400, "BadRequest", "sinceTime");
        assertStatus(fixture.send("POST", "/api/v1/namespaces/" + ns + "/pods/single/log", null, null), 405,
                "MethodNotAllowed", "");
    }

    @Test
    void kubeletAndNodeFailuresNameTheProblem() {
        assertStatus(get("multi/log?container=sidecar&previous=true"), 400, "BadRequest",
                "previous terminated container \"sidecar\" in pod \"multi\" not found");
        assertStatus(get("ghost/log"), 404, "NotFound", "container \"ghost\" not found in pod \"ghost\"");
        assertStatus(get("lost/log"), 404, "NotFound", "nodes \"node-gone\" not found");
        assertStatus(get("offline/log"), 503, "ServiceUnavailable", "node \"node-offline\"");
        assertStatus(get("faraway/log"), 503, "ServiceUnavailable", "10.0.0.1 is not on this machine's loopback");
    }

    @Test
    void followStreamsAsTheKubeletWrites() throws Exception {
        HttpResponse<InputStream> response = fixture.http.send(request("single/log?follow=true"),
                HttpResponse.BodyHandlers.ofInputStream());
        assertThat(response.statusCode()).isEqualTo(200);
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(response.body(),
                StandardCharsets.UTF_8))) {
            assertThat(lines.readLine()).isEqualTo("main 1");
            kubelet.follow("main 2\n");
            assertThat(lines.readLine()).isEqualTo("main 2");
            kubelet.endFollow();
            assertThat(lines.readLine()).isNull();
        }
    }

    @Test
    void manyLogsFollowedAtOnceDoNotWaitForEachOther() throws Exception {
        List<java.net.Socket> followers = new java.util.ArrayList<>();
        try {
            for (int i = 0; i < 12; i++) {
                followers.add(follow("single"));
            }
        } finally {
            for (java.net.Socket follower : followers) {
                follower.close();
            }
        }
    }

    @Test
    void aFollowerThatGoesAwayReleasesTheKubelet() throws Exception {
        int abandoned = kubelet.abandonedFollows.get();
        follow("single").close();
        await().atMost(Duration.ofSeconds(30)).until(() -> kubelet.abandonedFollows.get() > abandoned);
    }

    @Test
    void execOverV5() throws Exception {
        Session exec = connect("single/exec?command=env&stdout=true&stderr=true", V5);
        assertThat(exec.socket.subProtocol()).isEqualTo(V5);
        assertThat(exec.awaitClose()).isEqualTo((short) 1000);
        assertThat(exec.channel(1)).isEqualTo("HOSTNAME=single\nCONTAINER=main\n");
        assertThat(exec.channel(3)).isEqualTo(SUCCESS);
        assertThat(kubelet.requests).contains("/exec/" + ns + "/single/main?output=1&error=1&command=env");
    }

    @Test
    void execOverV4WithAnExitCode() throws Exception {
        Session exec = connect("multi/exec?container=sidecar&command=sh&command=-c&command=exit+3&stdout=1", V4);
        assertThat(exec.socket.subProtocol()).isEqualTo(V4);
        assertThat(exec.awaitClose()).isEqualTo((short) 1000);
        assertThat(exec.channel(3)).contains("\"reason\":\"NonZeroExitCode\"", "{\"reason\":\"ExitCode\",\"message\":\"3\"}");
        assertThat(kubelet.requests).contains("/exec/" + ns + "/multi/sidecar?output=1&command=sh&command=-c"
                + "&command=exit+3");
    }

    @Test
    void execStdinGoesBothWays() throws Exception {
        Session exec = connect("single/exec?command=cat&stdin=true&stdout=true&stderr=true", V5);
        exec.send(Buffer.buffer().appendByte((byte) 0).appendString("ping"));
        await().atMost(Duration.ofSeconds(30)).until(() -> exec.channel(1).equals("ping"));
        exec.send(Buffer.buffer(new byte[] {(byte) 255, 0}));
        assertThat(exec.awaitClose()).isEqualTo((short) 1000);
        assertThat(exec.channel(3)).isEqualTo(SUCCESS);
    }

    @Test
    void badExecRequestsGetTheirStatusBeforeAnyUpgrade() {
        assertRejected("single/exec?stdout=true", V5, 400, "you must specify at least one command for the container");
        assertRejected("single/exec?command=env", V5, 400, "you must specify at least 1 of stdin, stdout, stderr");
        assertRejected("nope/exec?command=env&stdout=true", V5, 404, "pods \\\"nope\\\" not found");
        assertRejected("pending/exec?command=env&stdout=true", V5, 400, "pod pending does not have a host assigned");
        assertRejected("multi/exec?command=env&stdout=true", V5, 400,
                "a container name must be specified for pod multi, choose one of: [init main sidecar]");
        assertRejected("multi/exec?container=db&command=env&stdout=true", V5, 400,
                "container db is not valid for pod multi");
        assertRejected("lost/exec?command=env&stdout=true", V5, 404, "nodes \\\"node-gone\\\" not found");
        assertRejected("offline/exec?command=env&stdout=true", V5, 503, "node \\\"node-offline\\\"");
        assertRejected("ghost/exec?command=env&stdout=true", V5, 404,
                "container \\\"ghost\\\" not found in pod \\\"ghost\\\"");
        assertRejected("single/exec?command=env&stdout=true", "base64.channel.k8s.io", 400,
                "requested protocol(s) are not supported");
    }

    @Test
    void execWithoutWebSocketIsRefused() {
        assertStatus(fixture.send("POST", "/api/v1/namespaces/" + ns + "/pods/single/exec?command=env&stdout=true",
                null, null), 400, "BadRequest", "Upgrade request required");
        HttpRequest spdy = HttpRequest.newBuilder(URI.create(fixture.server.url() + "/api/v1/namespaces/" + ns
                        + "/pods/single/exec?command=env&stdout=true"))
                .header("Authorization", "Bearer " + fixture.server.adminToken())
                .header("X-Stream-Protocol-Version", "v4.channel.k8s.io")
                .POST(HttpRequest.BodyPublishers.noBody()).build();
        assertStatus(send(spdy), 400, "BadRequest", "Upgrade request required");
    }

    @Test
    void aClientThatGoesAwayClosesTheKubeletSide() throws Exception {
        int closed = kubelet.closedSessions.get();
        Session exec = connect("single/exec?command=sleep&stdout=true", V5);
        exec.socket.close().await();
        await().atMost(Duration.ofSeconds(30)).until(() -> kubelet.closedSessions.get() > closed);
    }

    @Test
    void garbageFramesPassAndTheServerKeepsWorking() throws Exception {
        Session exec = connect("single/exec?command=cat&stdin=true&stdout=true", V5);
        exec.socket.writeTextMessage("not a channel message").await();
        exec.send(Buffer.buffer());
        exec.send(Buffer.buffer(new byte[] {42, 1, 2}));
        exec.send(Buffer.buffer().appendByte((byte) 0).appendString("still"));
        await().atMost(Duration.ofSeconds(30)).until(() -> exec.channel(1).equals("still"));
        exec.socket.close().await();

        Session next = connect("single/exec?command=env&stdout=true", V5);
        assertThat(next.awaitClose()).isEqualTo((short) 1000);
        assertThat(fixture.send("GET", "/healthz", null, null).body()).isEqualTo("ok");
    }

    @Test
    void fabric8ExecsOverItsWebSocket() throws Exception {
        try (ExecWatch watch = fixture.client.pods().inNamespace(ns).withName("single").inContainer("main")
                .redirectingOutput().exec("env")) {
            String out = new String(watch.getOutput().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(out).isEqualTo("HOSTNAME=single\nCONTAINER=main\n");
            assertThat(watch.exitCode().get(30, TimeUnit.SECONDS)).isZero();
        }
        try (ExecWatch failing = fixture.client.pods().inNamespace(ns).withName("single").inContainer("main")
                .redirectingOutput().exec("sh", "-c", "exit 3")) {
            assertThat(failing.exitCode().get(30, TimeUnit.SECONDS)).isEqualTo(3);
        }
    }

    /** @return a connection following the pod's log, once its first line arrived */
    private static java.net.Socket follow(String pod) throws IOException {
        java.net.Socket socket = new java.net.Socket("127.0.0.1", fixture.server.port());
        socket.setSoTimeout(30_000);
        socket.getOutputStream().write(("GET /api/v1/namespaces/" + ns + "/pods/" + pod + "/log?follow=true HTTP/1.1\r\n"
                + "Host: x\r\nAuthorization: Bearer " + fixture.server.adminToken() + "\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
        BufferedReader answer = new BufferedReader(new InputStreamReader(socket.getInputStream(),
                StandardCharsets.US_ASCII));
        String line;
        do {
            line = answer.readLine();
        } while (line != null && !line.equals("main 1"));
        assertThat(line).isEqualTo("main 1");
        return socket;
    }

    private static void assertStatus(HttpResponse<String> response, int code, String reason, String message) {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(code);
        JsonNode status = Json.parse(response.body().getBytes(StandardCharsets.UTF_8));
        assertThat(status.path("kind").asString()).isEqualTo("Status");
        assertThat(status.path("reason").asString()).isEqualTo(reason);
        assertThat(status.path("message").asString()).contains(message);
    }

    private void assertRejected(String path, String protocol, int code, String message) {
        assertThatThrownBy(() -> connect(path, protocol))
                .isInstanceOfSatisfying(UpgradeRejectedException.class, rejected -> {
                    assertThat(rejected.getStatus()).isEqualTo(code);
                    assertThat(rejected.getBody().toString()).contains("\"kind\":\"Status\"", message);
                });
    }

    private static HttpResponse<String> get(String podPath) {
        return fixture.send("GET", "/api/v1/namespaces/" + ns + "/pods/" + podPath, null, null);
    }

    private static HttpRequest request(String podPath) {
        return HttpRequest.newBuilder(URI.create(fixture.server.url() + "/api/v1/namespaces/" + ns + "/pods/"
                + podPath)).header("Authorization", "Bearer " + fixture.server.adminToken()).GET().build();
    }

    private static HttpResponse<String> send(HttpRequest request) {
        try {
            return fixture.http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static Session connect(String podPath, String protocol) {
        WebSocketConnectOptions options = new WebSocketConnectOptions().setHost("127.0.0.1")
                .setPort(fixture.server.port()).setURI("/api/v1/namespaces/" + ns + "/pods/" + podPath)
                .setSubProtocols(List.of(protocol))
                .addHeader("Authorization", "Bearer " + fixture.server.adminToken());
        // Connected from an event loop, the handlers are set as the socket opens, before the next frame is read. From
        // the test's thread they would be set by a later task, after a server that ends at once closed the socket
        // (Vert.x 5 then refuses them: docs/kube.md, "Clients").
        Promise<Session> opened = Promise.promise();
        vertx.runOnContext(v -> webSockets.connect(options).map(Session::new).onComplete(opened));
        return opened.future().await();
    }

    /** A client's exec stream: what arrived per channel, and the close. */
    private static final class Session {
        final WebSocket socket;
        final Map<Integer, Buffer> channels = new ConcurrentHashMap<>();
        final CompletableFuture<Short> closed = new CompletableFuture<>();

        Session(WebSocket socket) {
            this.socket = socket;
            socket.binaryMessageHandler(message -> channels
                    .computeIfAbsent((int) message.getUnsignedByte(0), channel -> Buffer.buffer())
                    .appendBuffer(message.getBuffer(1, message.length())));
            socket.closeHandler(v -> closed.complete(socket.closeStatusCode()));
        }

        String channel(int channel) {
            Buffer data = channels.get(channel);
            return data == null ? "" : data.toString(StandardCharsets.UTF_8);
        }

        void send(Buffer message) {
            socket.writeBinaryMessage(message).await();
        }

        short awaitClose() throws Exception {
            return closed.get(30, TimeUnit.SECONDS);
        }
    }
}
