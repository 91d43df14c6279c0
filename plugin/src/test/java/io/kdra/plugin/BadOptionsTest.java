package io.kdra.plugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kdra.plugin.resourceslice.DriverResources;
import io.kdra.plugin.resourceslice.Pool;
import io.kdra.plugin.testing.MockApiServer;
import io.kdra.plugin.testing.PluginFixture;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Each invalid option or call fails with a message that names the problem, and leaves nothing behind. */
class BadOptionsTest {

    @RegisterExtension
    final PluginFixture fixture = new PluginFixture();

    @Test
    void driverNameIsRequiredAndMustBeADnsSubdomain() {
        assertThatThrownBy(() -> builder("").start())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("driver name must be set");
        assertThatThrownBy(() -> builder("Test_Driver").start())
                .hasMessage("driver name \"Test_Driver\" must be a lowercase DNS subdomain of at most 63 characters");
        assertThatThrownBy(() -> builder("a".repeat(64)).start())
                .hasMessageContaining("at most 63 characters");
    }

    @Test
    void rollingUpdatesExcludeAnExplicitRegistrationSocketName() {
        assertThatThrownBy(() -> builder("test.example.com").rollingUpdate("uid").registrarSocketFilename("x.sock")
                .start())
                .hasMessage("rolling updates and explicit registration socket filename are mutually exclusive");
    }

    @Test
    void socketNamePartsMustNotLeaveTheirDirectory() {
        assertThatThrownBy(() -> builder("test.example.com").rollingUpdate("../uid").start())
                .hasMessage("rolling update UID \"../uid\" must be a non-empty name without '/'");
        assertThatThrownBy(() -> builder("test.example.com").registrarSocketFilename("sub/x.sock").start())
                .hasMessage("registration socket filename \"sub/x.sock\" must be a non-empty name without '/'");
    }

    @Test
    void atLeastOneDraServiceMustBeServed() {
        assertThatThrownBy(() -> builder("test.example.com").nodeV1(false).nodeV1beta1(false).healthV1(true).start())
                .hasMessage("no supported DRA gRPC API is implemented and enabled");
    }

    @Test
    void oneOfRegistrationAndDraServiceMustBeServed() {
        assertThatThrownBy(() -> builder("test.example.com").registrationService(false).draService(false).start())
                .hasMessage("neither the registration nor the DRA service is enabled");
        assertThatThrownBy(() -> builder("test.example.com").pluginSocket("../dra.sock").start())
                .hasMessage("DRA socket filename \"../dra.sock\" must be a non-empty name without '/'");
    }

    @Test
    void aSocketPathOfAtLeast108BytesIsRejectedAndTheOtherSocketIsRemoved() {
        Path longDirectory = fixture.resolve("r".repeat(100));
        Path draSocket = fixture.resolve("plugin/dra.sock");

        assertThatThrownBy(() -> builder("test.example.com").registrarDirectory(longDirectory).start())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("socket path " + longDirectory + "/test.example.com-reg.sock is ")
                .hasMessageEndingWith(" bytes long; Unix socket paths must be shorter than 108 bytes");
        assertThat(draSocket).doesNotExist();
    }

    @Test
    void aTooLongDraSocketPathIsRejectedBeforeAnythingIsServed() {
        Path longDirectory = fixture.resolve("p".repeat(100));

        assertThatThrownBy(() -> builder("test.example.com").pluginDataDirectory(longDirectory).start())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("socket path " + longDirectory + "/dra.sock is ")
                .hasMessageEndingWith(" bytes long; Unix socket paths must be shorter than 108 bytes");
        assertThat(fixture.resolve("registry/test.example.com-reg.sock")).doesNotExist();
    }

    @Test
    void anInjectedSocketPathMustFitTooAndTheListenerIsNotAskedFor() {
        Path longDirectory = fixture.resolve("r".repeat(100));
        List<Path> asked = new ArrayList<>();

        assertThatThrownBy(() -> builder("test.example.com").registrarDirectory(longDirectory)
                .registrarListener(socketPath -> {
                    asked.add(socketPath);
                    throw new IOException("must not be called");
                })
                .start())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("socket path " + longDirectory + "/test.example.com-reg.sock is ");
        assertThat(asked).isEmpty();
        assertThat(fixture.resolve("plugin/dra.sock")).doesNotExist();
    }

    @Test
    void aFailingListenerFactoryFailsStart() {
        assertThatThrownBy(() -> builder("test.example.com")
                .registrarListener(socketPath -> {
                    throw new IOException("proxy pod not ready for " + socketPath.getFileName());
                })
                .start())
                .isInstanceOf(IOException.class)
                .hasMessage("proxy pod not ready for test.example.com-reg.sock");
        assertThat(fixture.resolve("plugin/dra.sock")).doesNotExist();
    }

    @Test
    void publishingNeedsAClientAndANodeName() throws IOException {
        DriverResources resources = DriverResources.of("pool", Pool.ofDevices(List.of()));
        try (KubeletPlugin withoutClient = builder("test.example.com").nodeName("node-1").start()) {
            assertThatThrownBy(() -> withoutClient.publishResources(resources))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessage("no Kubernetes client was set to publish resources");
        }
        try (MockApiServer api = new MockApiServer();
                KubeletPlugin withoutNode = builder("test.example.com").kubernetesClient(api.client()).start()) {
            assertThatThrownBy(() -> withoutNode.publishResources(resources))
                    .hasMessage("no node name was set to publish resources");
            withoutNode.stop();
            assertThatThrownBy(() -> withoutNode.publishResources(resources))
                    .hasMessage("kubelet plugin for driver test.example.com is stopped");
        }
    }

    private KubeletPlugin.Builder builder(String driverName) {
        return fixture.builder(driverName, new RecordingDriver());
    }
}
