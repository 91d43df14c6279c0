package io.kdra.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.kdra.apiserver.ApiServer;
import io.kdra.kubelet.api.dra.v1.Claim;
import io.kdra.kubelet.api.dra.v1.DRAPluginGrpc;
import io.kdra.kubelet.api.dra.v1.NodePrepareResourceResponse;
import io.kdra.kubelet.api.dra.v1.NodePrepareResourcesRequest;
import io.kdra.kubelet.api.pluginregistration.v1.InfoRequest;
import io.kdra.kubelet.api.pluginregistration.v1.PluginInfo;
import io.kdra.kubelet.api.pluginregistration.v1.RegistrationGrpc;
import io.kdra.kubelet.api.pluginregistration.v1.RegistrationStatus;
import io.kdra.plugin.metadata.DeviceMetadataCodec;
import io.kdra.plugin.metadata.MetadataVersion;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code kdra driver kubelet-plugin}: flags in-process, the full life cycle as a separate JVM stopped by SIGTERM. */
class KubeletPluginCommandTest {

    private static final String DRIVER = DemoCluster.DRIVER;
    private static final String NODE = DemoCluster.NODE;
    private static final Duration PATIENCE = KdraProcess.PATIENCE;

    @TempDir(factory = ShortDirs.class)
    Path dir;

    /** Runs the command in this JVM; only for invocations that end before anything starts. */
    private static Result runInProcess(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Kdra.commandLine().setOut(new PrintWriter(out)).setErr(new PrintWriter(err)).execute(args);
        return new Result(code, out.toString(), err.toString());
    }

    private record Result(int code, String out, String err) {
    }

    @Test
    void helpListsTheUpstreamFlagsAndWhatIsNotSupported() {
        Result result = runInProcess("driver", "kubelet-plugin", "--help");

        assertThat(result.code()).isZero();
        assertThat(result.out()).contains("--drivername", "--node-name", "--kubeconfig", "--plugin-registration-path",
                "--datadir", "--cdi-dir", "--num-devices", "test-driver.cdi.k8s.io", "/var/lib/kubelet/plugins_registry",
                "/var/lib/kubelet/plugins", "/var/run/cdi", "default: 4", "--enable-device-metadata",
                "Not supported from upstream");
        assertThat(runInProcess("driver").out()).contains("kubelet-plugin");
    }

    @Test
    void missingNodeNameIsReportedAsUpstream() {
        Result result = runInProcess("driver", "kubelet-plugin");

        assertThat(result.code()).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(result.err()).startsWith("--node-name not set");
    }

    @Test
    void badValuesAreReportedBeforeAnythingStarts() throws IOException {
        assertThat(runInProcess("driver", "kubelet-plugin", "--node-name", NODE, "--num-devices", "-1").err())
                .startsWith("--num-devices must not be negative, got -1");
        assertThat(runInProcess("driver", "kubelet-plugin", "--node-name", NODE, "--kubeconfig",
                dir.resolve("missing").toString(), "--datadir", dir.resolve("data").toString(), "--cdi-dir",
                dir.resolve("cdi").toString()).err())
                .startsWith("--kubeconfig " + dir.resolve("missing") + ": no such file");
        Path malformed = dir.resolve("malformed");
        Files.writeString(malformed, "this: is: not [ a kubeconfig\n");
        Result notAKubeconfig = runInProcess("driver", "kubelet-plugin", "--node-name", NODE, "--kubeconfig",
                malformed.toString(), "--datadir", dir.resolve("data").toString(), "--cdi-dir",
                dir.resolve("cdi").toString());
        assertThat(notAKubeconfig.code()).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(notAKubeconfig.err())
                .startsWith("--kubeconfig " + malformed + ": not a kubeconfig: mapping values are not allowed here");
        assertThat(dir.resolve("data")).as("nothing created").doesNotExist();

        Path notADirectory = dir.resolve("file");
        Files.writeString(notADirectory, "");
        Result unwritable = runInProcess("driver", "kubelet-plugin", "--node-name", NODE, "--datadir",
                notADirectory.resolve("data").toString(), "--cdi-dir", dir.resolve("cdi").toString());
        assertThat(unwritable.code()).isEqualTo(1);
        assertThat(unwritable.err()).startsWith("cannot create directory: ").contains(notADirectory.toString());
    }

    @Test
    void invalidDriverNameIsReportedWithoutLeavingSockets() throws Exception {
        try (ApiServer server = ApiServer.builder().build().start()) {
            Path kubeconfig = server.writeKubeconfig(dir.resolve("kubeconfig"));
            Result result = runInProcess("driver", "kubelet-plugin", "--node-name", NODE, "--drivername", "Not_Valid",
                    "--kubeconfig", kubeconfig.toString(), "--plugin-registration-path", dir.resolve("reg").toString(),
                    "--datadir", dir.resolve("data").toString(), "--cdi-dir", dir.resolve("cdi").toString());

            assertThat(result.code()).as(result.err()).isEqualTo(CommandLine.ExitCode.USAGE);
            assertThat(result.err()).startsWith("driver name \"Not_Valid\" must be a lowercase DNS subdomain");
        }
        assertThat(dir.resolve("reg")).doesNotExist();
    }

    @Test
    void standaloneDriverRegistersPublishesPreparesAndStopsCleanlyOnSigterm() throws Exception {
        try (DemoCluster cluster = new DemoCluster(dir);
                KdraProcess driver = StandaloneDriver.start(dir, cluster.kubeconfig, "--num-devices", "3",
                        "--enable-device-metadata")) {
            Path registrationSocket = Path.of(driver.valueOf("registration socket: "));
            Path draSocket = Path.of(driver.valueOf("DRA socket: "));
            assertThat(registrationSocket).isEqualTo(dir.resolve("reg").resolve(DRIVER + "-reg.sock"));
            assertThat(draSocket).isEqualTo(dir.resolve("data").resolve(DRIVER).resolve("dra.sock"));

            ManagedChannel registrationChannel = channel(registrationSocket);
            ManagedChannel draChannel = channel(draSocket);
            try {
                RegistrationGrpc.RegistrationBlockingStub registration =
                        RegistrationGrpc.newBlockingStub(registrationChannel);
                PluginInfo info = registration.getInfo(InfoRequest.getDefaultInstance());
                assertThat(info.getName()).isEqualTo(DRIVER);
                assertThat(info.getEndpoint()).isEqualTo(draSocket.toString());
                assertThat(info.getSupportedVersionsList()).startsWith("v1.DRAPlugin", "v1beta1.DRAPlugin")
                        .contains("v1alpha1.DRAResourceHealth").doesNotContain("v1alpha3.NodeService");
                registration.notifyRegistrationStatus(RegistrationStatus.newBuilder().setPluginRegistered(true).build());

                await().atMost(PATIENCE).untilAsserted(() -> {
                    List<ResourceSlice> slices = cluster.client.dynamicResourceAllocation().v1().resourcesSlices()
                            .withField("spec.driver", DRIVER).list().getItems();
                    assertThat(slices).singleElement().satisfies(slice -> {
                        assertThat(slice.getSpec().getNodeName()).isEqualTo(NODE);
                        assertThat(slice.getSpec().getPool().getName()).isEqualTo(NODE);
                        assertThat(slice.getSpec().getDevices()).extracting(device -> device.getName())
                                .containsExactly("device-00", "device-01", "device-02");
                    });
                });

                String uid = cluster.claimUid();
                NodePrepareResourceResponse prepared = DRAPluginGrpc.newBlockingStub(draChannel)
                        .nodePrepareResources(NodePrepareResourcesRequest.newBuilder().addClaims(Claim.newBuilder()
                                .setNamespace("demo").setName("claim").setUid(uid)).build())
                        .getClaimsOrThrow(uid);
                assertThat(prepared.getError()).isEmpty();
                assertThat(prepared.getDevices(0).getCdiDeviceIdsList())
                        .containsExactly(DRIVER + "/test=claim-" + uid + "-req", DRIVER + "/metadata=" + uid + "_req");
                assertThat(dir.resolve("cdi").resolve(DRIVER + "-" + uid + "-req.json")).exists();
                assertThat(dir.resolve("cdi").resolve(DRIVER + "_metadata_" + uid + "_req.json")).exists();
                Path metadataFile = dir.resolve("data").resolve(DRIVER)
                        .resolve("dra-device-metadata/demo_claim/req/metadata.json");
                DeviceMetadataCodec.Decoded metadata = DeviceMetadataCodec.decode(Files.readAllBytes(metadataFile));
                assertThat(metadata.version()).isEqualTo(MetadataVersion.V1BETA1);
                assertThat(metadata.metadata().uid()).isEqualTo(uid);
            } finally {
                registrationChannel.shutdownNow().awaitTermination(30, TimeUnit.SECONDS);
                draChannel.shutdownNow().awaitTermination(30, TimeUnit.SECONDS);
            }

            assertThat(driver.terminate()).as("exit code after SIGTERM, 0 when stopped cleanly; stderr: %s",
                    driver.stderr()).isZero();
            assertThat(driver.valueOf("stopped; removed ")).contains(registrationSocket.toString());
            assertThat(registrationSocket).doesNotExist();
            assertThat(draSocket).doesNotExist();
        }
    }

    private static ManagedChannel channel(Path socket) {
        return Grpc.newChannelBuilder("unix://" + socket, InsecureChannelCredentials.create()).build();
    }
}
