package io.kdra.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResultBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimStatusBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
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
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code kdra driver kubelet-plugin}: flags in-process, the full life cycle as a separate JVM stopped by SIGTERM. */
class KubeletPluginCommandTest {

    private static final String DRIVER = "test-driver.cdi.k8s.io";
    private static final String NODE = "node-1";
    private static final Duration PATIENCE = Duration.ofSeconds(60);

    private Path dir;

    @BeforeEach
    void createDirectory() throws IOException {
        dir = Files.createTempDirectory(Path.of("/tmp"), "kd-");
    }

    @AfterEach
    void removeDirectory() throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(file);
            }
        }
    }

    /** Runs the command in this JVM; only for invocations that end before anything starts. */
    private static Result runInProcess(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = new CommandLine(new Kdra()).setOut(new PrintWriter(out)).setErr(new PrintWriter(err)).execute(args);
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
                "/var/lib/kubelet/plugins", "/var/run/cdi", "default: 4", "Not supported from upstream");
        assertThat(runInProcess("driver").out()).contains("kubelet-plugin");
    }

    @Test
    void missingNodeNameIsReportedAsUpstream() {
        Result result = runInProcess("driver", "kubelet-plugin");

        assertThat(result.code()).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(result.err()).startsWith("--node-name not set");
    }

    @Test
    void badValuesAreReportedBeforeAnythingStarts() {
        assertThat(runInProcess("driver", "kubelet-plugin", "--node-name", NODE, "--num-devices", "-1").err())
                .startsWith("--num-devices must not be negative, got -1");
        assertThat(runInProcess("driver", "kubelet-plugin", "--node-name", NODE, "--kubeconfig",
                dir.resolve("missing").toString(), "--datadir", dir.resolve("data").toString(), "--cdi-dir",
                dir.resolve("cdi").toString()).err())
                .startsWith("--kubeconfig " + dir.resolve("missing") + ": no such file");
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
        try (ApiServer server = ApiServer.builder().build().start();
                KubernetesClient client = new KubernetesClientBuilder()
                        .withConfig(Config.fromKubeconfig(server.writeKubeconfig(dir.resolve("kubeconfig")).toFile()))
                        .build()) {
            client.nodes().resource(new NodeBuilder().withNewMetadata().withName(NODE).endMetadata().build()).create();
            ResourceClaim claim = allocatedClaim(client);
            Process driver = startDriver(dir.resolve("kubeconfig"));
            BlockingQueue<String> out = lines(driver.getInputStream());
            try {
                Path registrationSocket = Path.of(valueOf(out, "registration socket: "));
                Path draSocket = Path.of(valueOf(out, "DRA socket: "));
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
                            .contains("v1alpha1.DRAResourceHealth");
                    registration.notifyRegistrationStatus(
                            RegistrationStatus.newBuilder().setPluginRegistered(true).build());

                    await().atMost(PATIENCE).untilAsserted(() -> {
                        List<ResourceSlice> slices = client.dynamicResourceAllocation().v1().resourcesSlices()
                                .withField("spec.driver", DRIVER).list().getItems();
                        assertThat(slices).singleElement().satisfies(slice -> {
                            assertThat(slice.getSpec().getPool().getName()).isEqualTo(NODE);
                            assertThat(slice.getSpec().getDevices()).extracting(device -> device.getName())
                                    .containsExactly("device-00", "device-01", "device-02");
                        });
                    });

                    String uid = claim.getMetadata().getUid();
                    NodePrepareResourceResponse prepared = DRAPluginGrpc.newBlockingStub(draChannel)
                            .nodePrepareResources(NodePrepareResourcesRequest.newBuilder().addClaims(Claim.newBuilder()
                                    .setNamespace("demo").setName("claim").setUid(uid)).build())
                            .getClaimsOrThrow(uid);
                    assertThat(prepared.getError()).isEmpty();
                    assertThat(prepared.getDevices(0).getCdiDeviceIdsList())
                            .containsExactly(DRIVER + "/test=claim-" + uid + "-req");
                    assertThat(dir.resolve("cdi").resolve(DRIVER + "-" + uid + "-req.json")).exists();
                } finally {
                    registrationChannel.shutdownNow().awaitTermination(30, TimeUnit.SECONDS);
                    draChannel.shutdownNow().awaitTermination(30, TimeUnit.SECONDS);
                }

                // SIGTERM; unlike Process.destroy() this leaves the output pipes open.
                assertThat(driver.toHandle().destroy()).isTrue();
                assertThat(driver.waitFor(PATIENCE.toSeconds(), TimeUnit.SECONDS)).as("stopped in time").isTrue();
                String err = Files.readString(dir.resolve("driver.err"));
                assertThat(driver.exitValue()).as("exit code after SIGTERM; stderr: %s", err).isEqualTo(143);
                assertThat(valueOf(out, "stopped; removed ")).as("stderr: %s", err)
                        .contains(registrationSocket.toString());
                assertThat(registrationSocket).doesNotExist();
                assertThat(draSocket).doesNotExist();
            } finally {
                driver.destroyForcibly();
            }
        }
    }

    private static ResourceClaim allocatedClaim(KubernetesClient client) {
        client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName("demo").endMetadata().build())
                .create();
        ResourceClaim claim = client.resource(new ResourceClaimBuilder()
                .withNewMetadata().withNamespace("demo").withName("claim").endMetadata()
                .withNewSpec().withNewDevices().addNewRequest().withName("req").withNewExactly()
                .withDeviceClassName("test-class").endExactly().endRequest().endDevices().endSpec()
                .build()).create();
        claim.setStatus(new ResourceClaimStatusBuilder().withNewAllocation().withNewDevices()
                .withResults(new DeviceRequestAllocationResultBuilder().withRequest("req").withDriver(DRIVER)
                        .withPool(NODE).withDevice("device-00").build())
                .endDevices().endAllocation().build());
        return client.resource(claim).updateStatus();
    }

    private Process startDriver(Path kubeconfig) throws IOException {
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        return new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", classpath, Kdra.class.getName(), "driver", "kubelet-plugin",
                "--node-name", NODE, "--kubeconfig", kubeconfig.toString(),
                "--plugin-registration-path", dir.resolve("reg").toString(),
                "--datadir", dir.resolve("data").toString(),
                "--cdi-dir", dir.resolve("cdi").toString(),
                "--num-devices", "3")
                .redirectError(dir.resolve("driver.err").toFile())
                .start();
    }

    private static BlockingQueue<String> lines(java.io.InputStream stream) {
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
                in.lines().forEach(lines::add);
            } catch (IOException e) {
                lines.add("reading failed: " + e);
            }
        }, "driver-stdout");
        reader.setDaemon(true);
        reader.start();
        return lines;
    }

    /** Skips output lines up to the one that starts with the prefix and returns the rest of that line. */
    private String valueOf(BlockingQueue<String> lines, String prefix) throws InterruptedException, IOException {
        StringBuilder skipped = new StringBuilder();
        while (true) {
            String line = lines.poll(PATIENCE.toSeconds(), TimeUnit.SECONDS);
            if (line == null) {
                Path err = dir.resolve("driver.err");
                throw new AssertionError("no output line starting with \"" + prefix + "\" after:" + skipped
                        + "\nstderr:\n" + (Files.exists(err) ? Files.readString(err) : ""));
            }
            skipped.append('\n').append(line);
            if (line.startsWith(prefix)) {
                return line.substring(prefix.length());
            }
        }
    }

    private static ManagedChannel channel(Path socket) {
        return Grpc.newChannelBuilder("unix://" + socket, InsecureChannelCredentials.create()).build();
    }
}
