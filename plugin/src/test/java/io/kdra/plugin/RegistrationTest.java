package io.kdra.plugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.StatusRuntimeException;
import io.kdra.kubelet.api.pluginregistration.v1.InfoRequest;
import io.kdra.kubelet.api.pluginregistration.v1.PluginInfo;
import io.kdra.kubelet.api.pluginregistration.v1.RegistrationGrpc;
import io.kdra.kubelet.api.pluginregistration.v1.RegistrationGrpc.RegistrationBlockingStub;
import io.kdra.plugin.testing.PluginFixture;
import java.io.IOException;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The kubelet's registration flow against the registration socket, as the plugin watcher runs it. */
class RegistrationTest {

    private static final String DRIVER = "test.example.com";

    @RegisterExtension
    final PluginFixture fixture = new PluginFixture();
    private KubeletPlugin plugin;

    @Test
    void getInfoDescribesTheDraSocketAndNotifyRecordsTheStatus() throws IOException {
        plugin = start(builder -> builder);
        RegistrationBlockingStub registration = registration();

        PluginInfo info = registration.getInfo(InfoRequest.getDefaultInstance());

        assertThat(info.getType()).isEqualTo("DRAPlugin");
        assertThat(info.getName()).isEqualTo(DRIVER);
        assertThat(info.getEndpoint()).isEqualTo(fixture.resolve("plugin/dra.sock").toString());
        assertThat(info.getSupportedVersionsList()).containsExactly("v1.DRAPlugin", "v1beta1.DRAPlugin");
        assertThat(plugin.registrationSocket()).isEqualTo(fixture.resolve("registry/" + DRIVER + "-reg.sock"));
        assertThat(plugin.registrationStatus()).isEmpty();

        registration.notifyRegistrationStatus(status(true, ""));

        assertThat(plugin.registrationStatus()).contains(new RegistrationStatus(true, ""));
    }

    @Test
    void rejectedRegistrationIsRecordedAndAnsweredWithAnError() throws IOException {
        plugin = start(builder -> builder);

        assertThatThrownBy(() -> registration().notifyRegistrationStatus(status(false, "no handler")))
                .isInstanceOf(StatusRuntimeException.class)
                .hasMessage("UNKNOWN: failed registration process: no handler");
        assertThat(plugin.registrationStatus()).contains(new RegistrationStatus(false, "no handler"));
    }

    @Test
    void failureHooksMakeBothCallsFailUntilCleared() throws IOException {
        plugin = start(builder -> builder);
        RegistrationBlockingStub registration = registration();

        plugin.setGetInfoError("injected GetInfo failure");
        plugin.setNotifyRegistrationStatusError("injected Notify failure");

        assertThatThrownBy(() -> registration.getInfo(InfoRequest.getDefaultInstance()))
                .hasMessage("UNKNOWN: injected GetInfo failure");
        assertThatThrownBy(() -> registration.notifyRegistrationStatus(status(true, "")))
                .hasMessage("UNKNOWN: injected Notify failure");
        assertThat(plugin.registrationStatus()).isEmpty();

        plugin.setGetInfoError(null);
        plugin.setNotifyRegistrationStatusError(null);

        assertThat(registration.getInfo(InfoRequest.getDefaultInstance()).getName()).isEqualTo(DRIVER);
        registration.notifyRegistrationStatus(status(true, ""));
        assertThat(plugin.registrationStatus()).contains(new RegistrationStatus(true, ""));
    }

    static Stream<Arguments> servedServices() {
        return Stream.of(
                Arguments.of("default", (UnaryOperator<KubeletPlugin.Builder>) b -> b,
                        List.of("v1.DRAPlugin", "v1beta1.DRAPlugin")),
                Arguments.of("v1 only", (UnaryOperator<KubeletPlugin.Builder>) b -> b.nodeV1beta1(false),
                        List.of("v1.DRAPlugin")),
                Arguments.of("v1beta1 only", (UnaryOperator<KubeletPlugin.Builder>) b -> b.nodeV1(false),
                        List.of("v1beta1.DRAPlugin")),
                Arguments.of("v1alpha4 only",
                        (UnaryOperator<KubeletPlugin.Builder>) b -> b.nodeV1(false).nodeV1beta1(false)
                                .nodeV1alpha4(true),
                        List.of("v1alpha3.NodeService")),
                Arguments.of("v1 with v1alpha1 health",
                        (UnaryOperator<KubeletPlugin.Builder>) b -> b.nodeV1beta1(false).healthV1alpha1(true),
                        List.of("v1.DRAPlugin", "v1alpha1.DRAResourceHealth")),
                Arguments.of("everything",
                        (UnaryOperator<KubeletPlugin.Builder>) b -> b.nodeV1alpha4(true).healthV1(true)
                                .healthV1beta1(true).healthV1alpha1(true),
                        List.of("v1.DRAPlugin", "v1beta1.DRAPlugin", "v1alpha3.NodeService", "v1.DRAResourceHealth",
                                "v1beta1.DRAResourceHealth", "v1alpha1.DRAResourceHealth")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("servedServices")
    void supportedVersionsListTheServedServicesInPreferenceOrder(String name,
            UnaryOperator<KubeletPlugin.Builder> options, List<String> expected) throws IOException {
        plugin = start(options);

        assertThat(registration().getInfo(InfoRequest.getDefaultInstance()).getSupportedVersionsList())
                .containsExactlyElementsOf(expected);
        assertThat(plugin.supportedVersions()).containsExactlyElementsOf(expected);
    }

    @Test
    void getInfoKeepsAnsweringAfterRegistration() throws IOException {
        plugin = start(builder -> builder);
        RegistrationBlockingStub registration = registration();
        registration.notifyRegistrationStatus(status(true, ""));

        // Newer kubelets poll GetInfo as a health check for the whole lifetime of the plugin.
        for (int i = 0; i < 3; i++) {
            assertThat(registration.getInfo(InfoRequest.getDefaultInstance()).getName()).isEqualTo(DRIVER);
        }
    }

    private KubeletPlugin start(UnaryOperator<KubeletPlugin.Builder> options) throws IOException {
        return fixture.start(options.apply(fixture.builder(DRIVER, new RecordingDriver())));
    }

    private RegistrationBlockingStub registration() {
        return RegistrationGrpc.newBlockingStub(fixture.dial(plugin.registrationSocket()));
    }

    private static io.kdra.kubelet.api.pluginregistration.v1.RegistrationStatus status(boolean registered,
            String error) {
        return io.kdra.kubelet.api.pluginregistration.v1.RegistrationStatus.newBuilder()
                .setPluginRegistered(registered).setError(error).build();
    }
}
