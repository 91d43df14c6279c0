package io.kdra.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import io.kdra.kubelet.api.pluginregistration.v1.InfoRequest;
import io.kdra.kubelet.api.pluginregistration.v1.PluginInfo;
import io.kdra.kubelet.api.pluginregistration.v1.RegistrationGrpc;
import io.kdra.plugin.testing.PluginFixture;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Rolling-update registration sockets stay valid Unix socket paths for long driver names (kubernetes#139166). */
class RegistrationSocketNameTest {

    /** 34 characters, as the DRA example driver's name that hit kubernetes#139166. */
    private static final String LONG_DRIVER = "gpu.dra-example-driver.sigs.k8s.io";
    /** The longest valid driver name: 63 characters. */
    private static final String LONGEST_DRIVER = "d".repeat(53) + ".k8s.io.io";
    private static final String UID_A = "ad4af911-5bcd-47c5-a554-f35cea869472";
    private static final String UID_B = "f358c92b-e974-4f29-a84f-6c64bec0949d";
    /** As long as the kubelet's default {@code /var/lib/kubelet/plugins_registry}. */
    private static final Path DEFAULT_LENGTH_REGISTRY = Path.of("/var/lib/kubelet/plugins_registry");

    @RegisterExtension
    final PluginFixture fixture = new PluginFixture();

    @Test
    void aShortDriverNameKeepsTheWholePodUid() {
        assertThat(RegistrationSocketName.choose(DEFAULT_LENGTH_REGISTRY, "gpu.example.com", UID_A))
                .isEqualTo("gpu.example.com-" + UID_A + "-reg.sock");
    }

    @Test
    void withoutRollingUpdatesTheNameIsTheDriverName() {
        assertThat(RegistrationSocketName.choose(DEFAULT_LENGTH_REGISTRY, LONGEST_DRIVER, null))
                .isEqualTo(LONGEST_DRIVER + "-reg.sock");
    }

    @Test
    void aLongDriverNameKeepsTheDriverNameAndShortensTheUid() {
        String name = RegistrationSocketName.choose(DEFAULT_LENGTH_REGISTRY, LONG_DRIVER, UID_A);

        assertThat(name).matches(LONG_DRIVER.replace(".", "\\.") + "-[A-Za-z0-9_-]{11}-reg\\.sock");
        assertThat(bytes(DEFAULT_LENGTH_REGISTRY.resolve(name))).isLessThan(108);
        assertThat(RegistrationSocketName.choose(DEFAULT_LENGTH_REGISTRY, LONG_DRIVER, UID_B)).isNotEqualTo(name);
        assertThat(RegistrationSocketName.choose(DEFAULT_LENGTH_REGISTRY, LONG_DRIVER, UID_A))
                .as("the same instance gets the same name").isEqualTo(name);
    }

    @Test
    void theLongestDriverNameFallsBackToADigestOfDriverAndUid() {
        String name = RegistrationSocketName.choose(DEFAULT_LENGTH_REGISTRY, LONGEST_DRIVER, UID_A);

        assertThat(name).matches("dra-[A-Za-z0-9_-]{22}-reg\\.sock");
        assertThat(bytes(DEFAULT_LENGTH_REGISTRY.resolve(name))).isLessThan(108);
        assertThat(RegistrationSocketName.choose(DEFAULT_LENGTH_REGISTRY, LONGEST_DRIVER, UID_B)).isNotEqualTo(name);
        assertThat(RegistrationSocketName.choose(DEFAULT_LENGTH_REGISTRY, "e" + LONGEST_DRIVER.substring(1), UID_A))
                .as("other drivers with the same pod UID").isNotEqualTo(name);
    }

    @Test
    void aPathOfExactly108BytesDoesNotFit() {
        // 107 bytes with the full UID: still fits; one byte more and the UID is shortened (kubernetes#141815)
        String driver = "d".repeat(LONG_DRIVER.length() - 6) + ".k8s.io";
        Path fitting = Path.of("/" + "r".repeat(107 - 1 - 1 - driver.length() - 1 - UID_A.length() - 9));
        Path oneLonger = Path.of(fitting + "r");

        assertThat(bytes(fitting.resolve(driver + "-" + UID_A + "-reg.sock"))).isEqualTo(107);
        assertThat(RegistrationSocketName.choose(fitting, driver, UID_A)).contains(UID_A);
        assertThat(RegistrationSocketName.choose(oneLonger, driver, UID_A)).doesNotContain(UID_A).startsWith(driver);
    }

    @Test
    void twoInstancesOfALongNamedDriverServeSideBySideAndTheNewOneOutlivesTheOld() throws IOException {
        Path registry = registryOfDefaultLength();
        KubeletPlugin old = fixture.start(builder(registry).rollingUpdate(UID_A));
        KubeletPlugin replacement = fixture.start(builder(registry).rollingUpdate(UID_B));

        for (KubeletPlugin plugin : List.of(old, replacement)) {
            assertThat(bytes(plugin.registrationSocket())).isLessThan(108);
            assertThat(plugin.registrationSocket()).exists();
            assertThat(plugin.registrationSocket().getParent()).isEqualTo(registry);
            assertThat(plugin.registrationSocket().getFileName().toString()).startsWith(LONG_DRIVER + "-");
            assertThat(info(plugin)).returns(LONG_DRIVER, PluginInfo::getName)
                    .returns(plugin.draSocket().toString(), PluginInfo::getEndpoint);
        }
        assertThat(old.registrationSocket()).isNotEqualTo(replacement.registrationSocket());

        old.stop();

        assertThat(old.registrationSocket()).doesNotExist();
        assertThat(replacement.registrationSocket()).exists();
        assertThat(info(replacement).getName()).isEqualTo(LONG_DRIVER);
    }

    private KubeletPlugin.Builder builder(Path registry) {
        return fixture.builder(LONG_DRIVER, new RecordingDriver()).registrarDirectory(registry);
    }

    /** A registry directory in the test's directory, exactly as long as the kubelet's default one. */
    private Path registryOfDefaultLength() {
        Path base = fixture.resolve("r");
        int missing = DEFAULT_LENGTH_REGISTRY.toString().length() - base.toString().length();
        assertThat(missing).as("the test directory is short enough").isNotNegative();
        return fixture.resolve("r" + "r".repeat(missing));
    }

    private PluginInfo info(KubeletPlugin plugin) {
        return RegistrationGrpc.newBlockingStub(fixture.dial(plugin.registrationSocket()))
                .getInfo(InfoRequest.getDefaultInstance());
    }

    private static int bytes(Path path) {
        return path.toString().getBytes(StandardCharsets.UTF_8).length;
    }
}
