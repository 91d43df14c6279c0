package io.kdra.plugin;

import static io.kdra.plugin.DraClient.claim;
import static io.kdra.plugin.DraClient.prepareRequest;
import static io.kdra.plugin.DraClient.unprepareRequest;
import static io.kdra.plugin.testing.Listeners.unixServer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.kdra.kubelet.api.dra.v1.NodePrepareResourcesResponse;
import io.kdra.plugin.testing.PluginFixture;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Two instances on the same directories, and a driver whose API server is down: the second instance refuses to start
 * rather than take over the first's sockets, an instance never removes a socket it did not create, and a prepare
 * fails at once saying why.
 */
class SocketOwnershipTest {

    private static final String DRIVER = "test.example.com";

    @RegisterExtension
    final PluginFixture fixture = new PluginFixture();

    @Test
    void aSecondInstanceOnTheSameDirectoriesRefusesToStartAndTheFirstKeepsServing() throws Exception {
        KubeletPlugin first = fixture.start(fixture.builder(DRIVER, new RecordingDriver()));

        assertThatThrownBy(() -> fixture.start(fixture.builder(DRIVER, new RecordingDriver())))
                .isInstanceOf(IOException.class)
                .hasMessageContaining(first.draSocket() + " is the socket of another running instance "
                        + "(it accepts connections); stop that instance or give this one other directories");

        assertThat(DraClient.V1.unprepare(fixture.dial(first.draSocket()), unprepareRequest()).getClaimsMap())
                .isEmpty();
        assertThat(first.registrationSocket()).exists();
    }

    @Test
    void stoppingLeavesInPlaceASocketThatIsNoLongerItsOwn() throws Exception {
        KubeletPlugin plugin = fixture.start(fixture.builder(DRIVER, new RecordingDriver()));
        Path socket = plugin.draSocket();
        Files.delete(socket);
        try (ServerSocketChannel other = unixServer(socket)) {
            plugin.stop();

            assertThat(socket).exists();
            assertThat(plugin.registrationSocket()).doesNotExist();
        }
    }

    @Test
    void withTheApiServerDownAPrepareFailsAtOnceSayingConnectionRefused() throws Exception {
        int closedPort;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = probe.getLocalPort();
        }
        try (KubernetesClient client = new KubernetesClientBuilder().withConfig(new ConfigBuilder()
                .withMasterUrl("http://127.0.0.1:" + closedPort).build()).build()) {
            KubeletPlugin plugin = fixture.start(fixture.builder(DRIVER, new RecordingDriver())
                    .kubernetesClient(client));
            long started = System.nanoTime();

            NodePrepareResourcesResponse response = DraClient.V1.prepare(fixture.dial(plugin.draSocket()),
                    prepareRequest(claim("ns", "c", "uid-1")));

            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(10));
            assertThat(response.getClaimsMap().get("uid-1").getError()).startsWith("retrieve claim ns/c: ")
                    .contains("Connection refused");
        }
    }
}
