package io.kdra.apiserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.LocalPortForward;
import io.vertx.core.Vertx;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The real kubectl's {@code logs} and {@code exec} through the API server to a node's kubelet. */
class KubectlStreamsTest {

    @TempDir
    static Path dir;
    private static ServerFixture fixture;
    private static Vertx vertx;
    private static FakeKubelet kubelet;
    private static Kubectl kubectl;
    private static String ns;

    @BeforeAll
    static void start() throws IOException {
        // kubectl sends its bearer token only over https
        fixture = new ServerFixture(ApiServerConfig.defaults().withTls(true));
        kubectl = new Kubectl(fixture.server.writeKubeconfig(dir.resolve("kubeconfig")));
        vertx = Vertx.vertx();
        kubelet = new FakeKubelet(vertx);
        int kubeletPort = kubelet.start();
        int closedPort;
        try (ServerSocket unused = new ServerSocket(0)) {
            closedPort = unused.getLocalPort();
        }
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
    void logs() {
        assertThat(kubectl("logs", "single").output()).isEqualTo("main 1\nmain 2\nmain 3");
        assertThat(kubectl("logs", "single", "--tail=1").output()).isEqualTo("main 3");
        assertThat(kubectl("logs", "multi", "-c", "sidecar").output()).isEqualTo("sidecar log");
        assertThat(kubectl("logs", "single", "--previous").output()).isEqualTo("main before restart");
    }

    @Test
    void logErrors() {
        Kubectl.Run previous = kubectl("logs", "multi", "-c", "sidecar", "--previous");
        assertThat(previous.exitValue()).isNotZero();
        assertThat(previous.output()).contains("Error from server (BadRequest): previous terminated container "
                + "\"sidecar\" in pod \"multi\" not found");
        Kubectl.Run unknown = kubectl("logs", "multi", "-c", "db");
        assertThat(unknown.exitValue()).isNotZero();
        assertThat(unknown.output()).contains("container db is not valid for pod multi");
        Kubectl.Run offline = kubectl("logs", "offline");
        assertThat(offline.exitValue()).isNotZero();
        assertThat(offline.output()).contains("node \"node-offline\"");
    }

    @Test
    void logsFollow() throws Exception {
        Process follow = start("logs", "-f", "single");
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(follow.getInputStream(),
                StandardCharsets.UTF_8))) {
            assertThat(lines.readLine()).isEqualTo("main 1");
            await().atMost(Duration.ofSeconds(30)).until(kubelet::isFollowed);
            kubelet.follow("main 2\n");
            assertThat(lines.readLine()).isEqualTo("main 2");
            kubelet.endFollow();
            assertThat(lines.readLine()).isNull();
        }
        assertThat(follow.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(follow.exitValue()).isZero();
    }

    @Test
    void execEnvUsesWebSocketsWithoutFallingBack() {
        Kubectl.Run env = kubectl("exec", "single", "-v=8", "--", "env");
        assertThat(env.exitValue()).as(env.output()).isZero();
        assertThat(env.output()).contains("HOSTNAME=single\nCONTAINER=main")
                .contains("v5.channel.k8s.io")
                .doesNotContain("SPDY", "falling back");
    }

    @Test
    void execWithStdin() throws Exception {
        Process cat = start("exec", "-i", "single", "--", "cat");
        try (OutputStream stdin = cat.getOutputStream()) {
            stdin.write("hello from stdin\n".getBytes(StandardCharsets.UTF_8));
        }
        String out = new String(cat.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(cat.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(cat.exitValue()).as(out).isZero();
        assertThat(out).isEqualTo("hello from stdin\n");
    }

    @Test
    void execExitCodeIsKubectls() {
        Kubectl.Run failing = kubectl("exec", "single", "--", "sh", "-c", "exit 3");
        assertThat(failing.exitValue()).as(failing.output()).isEqualTo(3);
        assertThat(failing.output()).contains("command terminated with exit code 3");
    }

    @Test
    void execErrors() {
        // kubectl falls back to SPDY when the WebSocket upgrade is refused, and gets the same Status again
        Kubectl.Run unknown = kubectl("exec", "multi", "-c", "db", "--", "env");
        assertThat(unknown.exitValue()).isNotZero();
        assertThat(unknown.output()).contains("Error from server (BadRequest): container db is not valid for pod multi");
        Kubectl.Run pending = kubectl("exec", "pending", "--", "env");
        assertThat(pending.exitValue()).isNotZero();
        assertThat(pending.output()).contains("pod pending does not have a host assigned");
        assertThat(kubectl("exec", "single", "--", "env").exitValue()).isZero();
    }

    @Test
    void portForwardTunnelsSpdyOverWebSocket() throws Exception {
        int localPort;
        try (ServerSocket free = new ServerSocket(0)) {
            localPort = free.getLocalPort();
        }
        // kubectl forwards only to a running pod
        fixture.client.pods().inNamespace(ns).withName("single").editStatus(pod -> new PodBuilder(pod)
                .editOrNewStatus().withPhase("Running").endStatus().build());
        Process forward = start("port-forward", "-v=6", "pod/single", localPort + ":" + FakeKubelet.ECHO_PORT);
        try {
            BufferedReader output = new BufferedReader(new InputStreamReader(forward.getInputStream(),
                    StandardCharsets.UTF_8));
            StringBuilder seen = new StringBuilder();
            String line;
            while ((line = output.readLine()) != null && !line.startsWith("Forwarding from 127.0.0.1")) {
                seen.append(line).append('\n');
            }
            assertThat(line).as(seen.toString()).isNotNull();
            for (String word : List.of("hello", "again")) {
                try (Socket socket = new Socket("127.0.0.1", localPort)) {
                    socket.getOutputStream().write((word + "\n").getBytes(StandardCharsets.UTF_8));
                    BufferedReader answer = new BufferedReader(new InputStreamReader(socket.getInputStream(),
                            StandardCharsets.UTF_8));
                    assertThat(answer.readLine()).isEqualTo(word.toUpperCase(java.util.Locale.ROOT));
                }
            }
            assertThat(seen.toString()).doesNotContain("falling back");
        } finally {
            forward.destroy();
            forward.waitFor(30, TimeUnit.SECONDS);

        }
    }

    @Test
    void portForwardOfFabric8UsesTheChannelProtocol() throws Exception {
        try (LocalPortForward forward = fixture.client.pods().inNamespace(ns).withName("single")
                .portForward(FakeKubelet.ECHO_PORT);
                Socket socket = new Socket("127.0.0.1", forward.getLocalPort())) {
            socket.getOutputStream().write("fabric8\n".getBytes(StandardCharsets.UTF_8));
            BufferedReader answer = new BufferedReader(new InputStreamReader(socket.getInputStream(),
                    StandardCharsets.UTF_8));
            assertThat(answer.readLine()).isEqualTo("FABRIC8");
        }
        assertThat(kubelet.requests).contains("/portForward/" + ns + "/single?ports=" + FakeKubelet.ECHO_PORT);
    }

    private static Kubectl.Run kubectl(String... args) {
        return kubectl.run(inNamespace(args));
    }

    private static Process start(String... args) throws IOException {
        return kubectl.start(inNamespace(args));
    }

    private static Object[] inNamespace(String... args) {
        List<Object> all = new ArrayList<>(List.of("-n", ns));
        all.addAll(List.of(args));
        return all.toArray();
    }
}
