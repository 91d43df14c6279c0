package io.kdra.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.LocalPortForward;
import io.fabric8.kubernetes.client.dsl.ExecWatch;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The pieces of upstream's driver proxy pod on an embedded node: hostPath volumes at the node's directories, exec'd
 * commands that see them at the container's paths, the proxy command run natively, and {@code pods/portforward} to the
 * port it listens on, paired with a connection to its Unix socket.
 */
class DriverProxyPodTest {

    private static final Duration WAIT = Duration.ofSeconds(60);

    private static EmbeddedCluster cluster;
    private static KubernetesClient admin;
    private static String namespace;

    @BeforeAll
    static void start() {
        cluster = EmbeddedCluster.builder().nodes(1).start();
        admin = cluster.adminClient();
        namespace = "proxy-" + System.nanoTime() % 100_000;
        admin.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(namespace).endMetadata()
                .build()).create();
        admin.pods().inNamespace(namespace).resource(new PodBuilder().withNewMetadata().withName("proxy")
                .endMetadata().withNewSpec().withNodeName(cluster.nodes().get(0).name())
                .addNewContainer().withName("pause").withImage("registry.k8s.io/sig-storage/hostpathplugin:v1.17.1")
                .withCommand("/bin/sh", "-c", "while true; do sleep 10000; done")
                .addNewVolumeMount().withName("socket-dir").withMountPath("/var/lib/kubelet/plugins/proxy.k8s.io")
                .endVolumeMount()
                .addNewVolumeMount().withName("registration-dir").withMountPath("/var/lib/kubelet/plugins_registry")
                .endVolumeMount()
                .addNewVolumeMount().withName("cdi-dir").withMountPath("/cdi").endVolumeMount()
                .endContainer()
                .addNewVolume().withName("socket-dir").withNewHostPath()
                .withPath("/var/lib/kubelet/plugins/proxy.k8s.io").withType("DirectoryOrCreate").endHostPath()
                .endVolume()
                .addNewVolume().withName("registration-dir").withNewHostPath()
                .withPath("/var/lib/kubelet/plugins_registry").withType("Directory").endHostPath().endVolume()
                .addNewVolume().withName("cdi-dir").withNewHostPath().withPath("/var/run/cdi")
                .withType("DirectoryOrCreate").endHostPath().endVolume()
                .endSpec().build()).create();
        await().atMost(WAIT).until(() -> {
            Pod pod = admin.pods().inNamespace(namespace).withName("proxy").get();
            return pod.getStatus() != null && "Running".equals(pod.getStatus().getPhase());
        });
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void execSeesHostPathVolumesAtTheContainersPaths() throws Exception {
        ClusterNode node = cluster.nodes().get(0);
        assertThat(exec("sh", "-c", "echo '{}' >'/cdi/spec.json.tmp' && mv /cdi/spec.json.tmp /cdi/spec.json"))
                .isZero();
        assertThat(node.cdiDirectory().resolve("spec.json")).hasContent("{}");
        assertThat(node.pluginsDirectory().resolve("proxy.k8s.io")).isDirectory();
        assertThat(exec("rm", "-f", "/cdi/spec.json")).isZero();
        assertThat(node.cdiDirectory().resolve("spec.json")).doesNotExist();
    }

    @Test
    void proxyPairsKubeletConnectionsWithForwardedOnes() throws Exception {
        // not in the plugin registry, where the kubelet itself would dial it
        Path socket = cluster.nodes().get(0).pluginsDirectory().resolve("proxy.k8s.io/dra.sock");
        ByteArrayOutputStream output = new ByteArrayOutputStream();
        try (ExecWatch proxy = admin.pods().inNamespace(namespace).withName("proxy").writingError(output)
                .exec("/hostpathplugin", "--v=5", "--endpoint=/var/lib/kubelet/plugins/proxy.k8s.io/dra.sock",
                        "--proxy-endpoint=tcp://:9001")) {
            await().atMost(WAIT).until(() -> Files.exists(socket));
            try (LocalPortForward forward = admin.pods().inNamespace(namespace).withName("proxy").portForward(9001);
                    Socket test = new Socket("127.0.0.1", forward.getLocalPort());
                    SocketChannel kubelet = SocketChannel.open(StandardProtocolFamily.UNIX)) {
                OutputStream toKubelet = test.getOutputStream();
                InputStream fromKubelet = test.getInputStream();
                kubelet.connect(UnixDomainSocketAddress.of(socket));
                kubelet.write(ByteBuffer.wrap("ping".getBytes(StandardCharsets.UTF_8)));
                assertThat(new String(fromKubelet.readNBytes(4), StandardCharsets.UTF_8)).isEqualTo("ping");
                toKubelet.write("pong".getBytes(StandardCharsets.UTF_8));
                ByteBuffer answer = ByteBuffer.allocate(4);
                while (answer.hasRemaining() && kubelet.read(answer) >= 0) {
                    // until the four bytes are there
                }
                assertThat(new String(answer.array(), StandardCharsets.UTF_8)).isEqualTo("pong");
            }
        }
        assertThat(output.toString(StandardCharsets.UTF_8)).contains("listening on");
        // killed, the proxy leaves its socket file behind, as the image's binary does
        await().atMost(WAIT).until(() -> exec("rm", "-f",
                "/var/lib/kubelet/plugins/proxy.k8s.io/dra.sock") == 0 && !Files.exists(socket));
    }

    @Test
    void proxyListensOnTheLongestSocketPathTheKernelTakes() throws Exception {
        Path directory = cluster.nodes().get(0).pluginsDirectory().resolve("proxy.k8s.io");
        // 107 bytes and the terminating NUL fill sockaddr_un; the JDK alone does not bind that long a path
        String name = "x".repeat(107 - directory.toString().length() - "/.sock".length()) + ".sock";
        Path socket = directory.resolve(name);
        try (ExecWatch proxy = admin.pods().inNamespace(namespace).withName("proxy")
                .writingError(OutputStream.nullOutputStream())
                .exec("/hostpathplugin", "--endpoint=/var/lib/kubelet/plugins/proxy.k8s.io/" + name,
                        "--proxy-endpoint=tcp://:9002")) {
            await().atMost(WAIT).until(() -> Files.exists(socket));
        }
        assertThat(socket.toString()).hasSize(107);
    }

    private static int exec(String... command) throws Exception {
        try (ExecWatch watch = admin.pods().inNamespace(namespace).withName("proxy").writingOutput(
                OutputStream.nullOutputStream()).exec(command)) {
            return watch.exitCode().get(WAIT.toSeconds(), TimeUnit.SECONDS);
        }
    }
}
