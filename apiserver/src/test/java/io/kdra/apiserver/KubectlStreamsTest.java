package io.kdra.apiserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.vertx.core.Vertx;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The real kubectl's {@code logs} and {@code exec} through the API server to a node's kubelet. */
class KubectlStreamsTest {

    private static ServerFixture fixture;
    private static Vertx vertx;
    private static FakeKubelet kubelet;
    private static Path kubeconfig;
    private static String ns;

    @BeforeAll
    static void start() throws IOException {
        // kubectl sends its bearer token only over https
        fixture = new ServerFixture(ApiServerConfig.defaults().withTls(true));
        kubeconfig = fixture.server.writeKubeconfig(Files.createTempDirectory("kdra-kubectl").resolve("kubeconfig"));
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
        Run previous = kubectl("logs", "multi", "-c", "sidecar", "--previous");
        assertThat(previous.exitCode()).isNotZero();
        assertThat(previous.output()).contains("Error from server (BadRequest): previous terminated container "
                + "\"sidecar\" in pod \"multi\" not found");
        Run unknown = kubectl("logs", "multi", "-c", "db");
        assertThat(unknown.exitCode()).isNotZero();
        assertThat(unknown.output()).contains("container db is not valid for pod multi");
        Run offline = kubectl("logs", "offline");
        assertThat(offline.exitCode()).isNotZero();
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
        Run env = kubectl("exec", "single", "-v=8", "--", "env");
        assertThat(env.exitCode()).as(env.output()).isZero();
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
        Run failing = kubectl("exec", "single", "--", "sh", "-c", "exit 3");
        assertThat(failing.exitCode()).as(failing.output()).isEqualTo(3);
        assertThat(failing.output()).contains("command terminated with exit code 3");
    }

    @Test
    void execErrors() {
        // kubectl falls back to SPDY when the WebSocket upgrade is refused, and gets the same Status again
        Run unknown = kubectl("exec", "multi", "-c", "db", "--", "env");
        assertThat(unknown.exitCode()).isNotZero();
        assertThat(unknown.output()).contains("Error from server (BadRequest): container db is not valid for pod multi");
        Run pending = kubectl("exec", "pending", "--", "env");
        assertThat(pending.exitCode()).isNotZero();
        assertThat(pending.output()).contains("pod pending does not have a host assigned");
        assertThat(kubectl("exec", "single", "--", "env").exitCode()).isZero();
    }

    private record Run(int exitCode, String output) {}

    private static Run kubectl(String... args) {
        try {
            Process process = start(args);
            process.getOutputStream().close();
            String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
            return new Run(process.exitValue(), out.trim());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static Process start(String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of("kubectl", "--kubeconfig", kubeconfig.toString(), "-n", ns));
        command.addAll(List.of(args));
        return new ProcessBuilder(command).redirectErrorStream(true).start();
    }
}
