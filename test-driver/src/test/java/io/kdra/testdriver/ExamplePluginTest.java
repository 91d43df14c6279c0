package io.kdra.testdriver;

import static io.kdra.testdriver.Claims.allocated;
import static io.kdra.testdriver.Claims.claimConfig;
import static io.kdra.testdriver.Claims.classConfig;
import static io.kdra.testdriver.Claims.result;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.resource.v1.AllocatedDeviceStatusBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttributeBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import io.kdra.kubelet.api.dra.v1.Device;
import io.kdra.kubelet.api.dra.v1.NodePrepareResourceResponse;
import io.kdra.kubelet.api.dra.v1.NodePrepareResourcesRequest;
import io.kdra.kubelet.api.dra.v1.NodePrepareResourcesResponse;
import io.kdra.kubelet.api.drahealth.v1.DRAResourceHealthGrpc;
import io.kdra.kubelet.api.drahealth.v1.NodeWatchResourcesRequest;
import io.kdra.kubelet.api.drahealth.v1.NodeWatchResourcesResponse;
import io.kdra.kubelet.api.pluginregistration.v1.InfoRequest;
import io.kdra.kubelet.api.pluginregistration.v1.PluginInfo;
import io.kdra.kubelet.api.pluginregistration.v1.RegistrationGrpc;
import io.kdra.kubelet.api.pluginregistration.v1.RegistrationStatus;
import io.kdra.plugin.HealthStatus;
import io.kdra.plugin.KubeletPlugin;
import io.kdra.plugin.cdi.FileOperations;
import io.kdra.plugin.cdi.LocalFileOperations;
import io.kdra.plugin.metadata.DeviceMetadata;
import io.kdra.plugin.metadata.DeviceMetadataCodec;
import io.kdra.plugin.metadata.MetadataVersion;
import io.kdra.plugin.resourceslice.DriverResources;
import io.kdra.plugin.resourceslice.Pool;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The test driver as a kubelet sees it: real gRPC over Unix sockets, claims from the embedded API server. */
class ExamplePluginTest {

    private static final String DRIVER = "test-driver.cdi.k8s.io";
    private static final String OTHER_DRIVER = "other.example.com";
    private static final String NODE = "node-1";
    private static final Duration PATIENCE = Duration.ofSeconds(30);

    private static TestCluster cluster;
    private ShortDir dir;
    private Kubelet kubelet;
    private String namespace;
    private ExamplePlugin driver;

    @BeforeAll
    static void startCluster() {
        cluster = new TestCluster();
        cluster.node(NODE);
    }

    @AfterAll
    static void stopCluster() {
        cluster.close();
    }

    @BeforeEach
    void setUp() {
        dir = new ShortDir();
        kubelet = new Kubelet();
        namespace = cluster.namespace();
    }

    @AfterEach
    void tearDown() throws Exception {
        kubelet.close();
        if (driver != null) {
            driver.stop();
        }
        dir.close();
    }

    private ExamplePlugin start(Consumer<ExamplePlugin.Builder> extra) throws IOException {
        ExamplePlugin.Builder builder = ExamplePlugin.builder(DRIVER, dir.resolve("cdi"))
                .nodeName(NODE)
                .kubernetesClient(cluster.client)
                .pluginOptions(plugin -> plugin.registrarDirectory(dir.resolve("registry"))
                        .pluginDataDirectory(dir.resolve("plugin")));
        extra.accept(builder);
        driver = builder.start();
        return driver;
    }

    private ExamplePlugin start() throws IOException {
        return start(builder -> { });
    }

    private Path draSocket() {
        return driver.kubeletPlugin().draSocket();
    }

    private Path cdiFile(ResourceClaim claim, String request) {
        return dir.resolve("cdi").resolve(driver.cdiFileName(claim.getMetadata().getUid(), request));
    }

    private ResourceClaim simpleClaim(String name) {
        return allocated(cluster.client, namespace, name, result("req", DRIVER, NODE, "device-00"));
    }

    @Test
    void registrationAdvertisesTheDraSocketAndRecordsTheKubeletsVerdict() throws Exception {
        start();
        assertThat(driver.isRegistered()).isFalse();

        PluginInfo info = kubelet.register(driver.kubeletPlugin().registrationSocket());

        assertThat(info.getType()).isEqualTo("DRAPlugin");
        assertThat(info.getName()).isEqualTo(DRIVER);
        assertThat(info.getEndpoint()).isEqualTo(dir.resolve("plugin/dra.sock").toString());
        assertThat(info.getSupportedVersionsList()).containsExactly("v1.DRAPlugin", "v1beta1.DRAPlugin");
        assertThat(driver.isRegistered()).isTrue();
        assertThat(driver.grpcCalls()).matches(CallMatcher.beRegistered(), CallMatcher.beRegistered().description());
        assertThat(driver.grpcCalls()).extracting(GrpcCall::fullMethod).containsExactly(
                "/pluginregistration.Registration/GetInfo",
                "/pluginregistration.Registration/NotifyRegistrationStatus");
    }

    @Test
    void registrationFailuresCanBeInjectedAndLifted() throws Exception {
        start();
        RegistrationGrpc.RegistrationBlockingStub registration =
                RegistrationGrpc.newBlockingStub(kubelet.dial(driver.kubeletPlugin().registrationSocket()));
        driver.setGetInfoError("injected GetInfo failure");
        driver.setNotifyRegistrationStatusError("injected Notify failure");

        assertThatThrownBy(() -> registration.getInfo(InfoRequest.getDefaultInstance()))
                .hasMessageContaining("injected GetInfo failure");
        assertThatThrownBy(() -> registration.notifyRegistrationStatus(
                RegistrationStatus.newBuilder().setPluginRegistered(true).build()))
                .hasMessageContaining("injected Notify failure");
        assertThat(driver.grpcCalls())
                .matches(CallMatcher.getInfoFailed())
                .matches(CallMatcher.notifyRegistrationStatusFailed())
                .noneMatch(GrpcCall::succeeded);
        assertThat(driver.isRegistered()).isFalse();

        driver.setGetInfoError(null);
        driver.setNotifyRegistrationStatusError(null);
        kubelet.register(driver.kubeletPlugin().registrationSocket());
        assertThat(driver.isRegistered()).isTrue();
        assertThat(driver.grpcCalls()).matches(CallMatcher.beRegistered());
    }

    @Test
    void prepareWritesTheGoldenCdiSpecAndReturnsItsDevice() throws Exception {
        start();
        ResourceClaim claim = allocated(cluster.client, namespace, "external-claim",
                List.of(result("my-request", DRIVER, NODE, "device-00")),
                List.of(classConfig(DRIVER, Map.of("x", "y")), claimConfig(DRIVER, Map.of("a", "b"))));
        String uid = claim.getMetadata().getUid();

        NodePrepareResourcesResponse response = kubelet.prepare(draSocket(), claim);

        assertThat(response.getClaimsMap()).containsOnlyKeys(uid);
        NodePrepareResourceResponse prepared = response.getClaimsOrThrow(uid);
        assertThat(prepared.getError()).isEmpty();
        assertThat(prepared.getDevicesList()).containsExactly(Device.newBuilder()
                .setPoolName(NODE).setDeviceName("device-00").addRequestNames("my-request")
                .addCdiDeviceIds(DRIVER + "/test=claim-" + uid + "-my-request").build());
        Path file = dir.resolve("cdi").resolve(DRIVER + "-" + uid + "-my-request.json");
        assertThat(Files.readString(file)).isEqualTo(golden("prepared-claim.cdi.json")
                .replace("${DRIVER}", DRIVER).replace("${UID}", uid).strip());
        assertThat(Files.getPosixFilePermissions(file)).extracting(Object::toString)
                .containsExactlyInAnyOrder("OWNER_READ", "OWNER_WRITE", "GROUP_READ", "OTHERS_READ");
        assertThat(driver.preparedClaims()).containsExactly(new ClaimId("external-claim", uid));
        assertThat(driver.grpcCalls()).matches(CallMatcher.nodePrepareResourcesSucceeded());
    }

    private static String golden(String name) throws IOException {
        try (InputStream in = ExamplePluginTest.class.getResourceAsStream(name)) {
            assertThat(in).as("resource " + name).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void lastConfigWinsSubrequestsUseTheirBaseAndOtherDriversAreIgnored() throws Exception {
        start();
        ResourceClaim claim = allocated(cluster.client, namespace, "multi.claim-1",
                List.of(result("req-a/sub-1", DRIVER, NODE, "device-00"),
                        result("req-b", OTHER_DRIVER, NODE, "nic-0"),
                        result("req-c", DRIVER, NODE, "device-01")),
                List.of(classConfig(DRIVER, Map.of("class", "1")),
                        claimConfig(DRIVER, Map.of("a", "first", "b", "kept")),
                        claimConfig(OTHER_DRIVER, Map.of("a", "other driver")),
                        claimConfig(DRIVER, Map.of("a", "second"), "req-a"),
                        claimConfig(DRIVER, Map.of("c", "only for c"), "req-c")));
        String uid = claim.getMetadata().getUid();

        NodePrepareResourceResponse prepared = kubelet.prepare(draSocket(), claim).getClaimsOrThrow(uid);

        assertThat(prepared.getError()).isEmpty();
        assertThat(prepared.getDevicesList()).extracting(Device::getDeviceName, Device::getRequestNamesList,
                        Device::getCdiDeviceIdsList)
                .containsExactly(
                        tuple("device-00", List.of("req-a"),
                                List.of(DRIVER + "/test=claim-" + uid + "-req-a")),
                        tuple("device-01", List.of("req-c"),
                                List.of(DRIVER + "/test=claim-" + uid + "-req-c")));
        assertThat(Files.readString(cdiFile(claim, "req-a"))).contains(
                "\"env\":[\"admin_class=1\",\"claim_multi_claim_1_req_a=true\",\"user_a=second\",\"user_b=kept\"]");
        assertThat(Files.readString(cdiFile(claim, "req-c"))).contains(
                "\"env\":[\"admin_class=1\",\"claim_multi_claim_1_req_c=true\",\"user_a=first\",\"user_b=kept\","
                        + "\"user_c=only for c\"]");
        try (var files = Files.list(dir.resolve("cdi"))) {
            assertThat(files.map(path -> path.getFileName().toString()))
                    .containsExactlyInAnyOrder(DRIVER + "-" + uid + "-req-a.json", DRIVER + "-" + uid + "-req-c.json");
        }
    }

    @Test
    void aClaimWithoutResultsOfThisDriverIsPreparedWithoutDevicesOrFiles() throws Exception {
        start();
        ResourceClaim claim = allocated(cluster.client, namespace, "foreign",
                result("req", OTHER_DRIVER, NODE, "nic-0"));

        NodePrepareResourceResponse prepared = kubelet.prepare(draSocket(), claim)
                .getClaimsOrThrow(claim.getMetadata().getUid());

        assertThat(prepared.getError()).isEmpty();
        assertThat(prepared.getDevicesList()).isEmpty();
        assertThat(driver.preparedClaims()).extracting(ClaimId::name).containsExactly("foreign");
        assertThat(dir.resolve("cdi")).doesNotExist();
        kubelet.unprepare(draSocket(), claim);
        assertThat(driver.preparedClaims()).isEmpty();
    }

    @Test
    void parametersThatAreNotAnObjectOfStringsFailOnlyThatClaimNamingTheConfig() throws Exception {
        start();
        ResourceClaim good = simpleClaim("good");
        ResourceClaim number = allocated(cluster.client, namespace, "number",
                List.of(result("req", DRIVER, NODE, "device-00")),
                List.of(claimConfig(DRIVER, Map.of("a", "fine")), claimConfig(DRIVER, Map.of("count", 1))));
        ResourceClaim nested = allocated(cluster.client, namespace, "nested",
                List.of(result("req", DRIVER, NODE, "device-00")),
                List.of(classConfig(DRIVER, Map.of("inner", Map.of("x", "y")))));
        ResourceClaim list = allocated(cluster.client, namespace, "list",
                List.of(result("req", DRIVER, NODE, "device-00")),
                List.of(claimConfig(DRIVER, Map.of("values", List.of("a", "b")))));

        NodePrepareResourcesResponse response = kubelet.prepare(draSocket(), good, number, nested, list);

        assertThat(response.getClaimsOrThrow(good.getMetadata().getUid()).getError()).isEmpty();
        assertThat(response.getClaimsOrThrow(number.getMetadata().getUid()).getError()).isEqualTo(
                "parameters in config #1: decoding user parameters: value of \"count\" must be a string, got number 1");
        assertThat(response.getClaimsOrThrow(nested.getMetadata().getUid()).getError()).isEqualTo(
                "parameters in config #0: decoding admin parameters: value of \"inner\" must be a string, "
                        + "got object {\"x\":\"y\"}");
        assertThat(response.getClaimsOrThrow(list.getMetadata().getUid()).getError()).isEqualTo(
                "parameters in config #0: decoding user parameters: value of \"values\" must be a string, "
                        + "got array [\"a\",\"b\"]");
        assertThat(driver.preparedClaims()).extracting(ClaimId::name).containsExactly("good");
        try (var files = Files.list(dir.resolve("cdi"))) {
            assertThat(files).containsExactly(cdiFile(good, "req"));
        }
    }

    @Test
    void withDeviceMetadataEachRequestsFileNamesDriverPoolAndDevice() throws Exception {
        start(builder -> builder.pluginOptions(plugin -> plugin.registrarDirectory(dir.resolve("registry"))
                .pluginDataDirectory(dir.resolve("plugin"))
                .enableDeviceMetadata(true)
                .metadataVersions(MetadataVersion.V1BETA1)
                .cdiFiles(new LocalFileOperations(dir.resolve("cdi")))));
        ResourceClaim claim = simpleClaim("with-metadata");
        String uid = claim.getMetadata().getUid();

        NodePrepareResourceResponse prepared = kubelet.prepare(draSocket(), claim).getClaimsOrThrow(uid);

        assertThat(prepared.getDevices(0).getCdiDeviceIdsList()).containsExactly(
                DRIVER + "/test=claim-" + uid + "-req", DRIVER + "/metadata=" + uid + "_req");
        DeviceMetadata metadata = DeviceMetadataCodec.decode(Files.readAllBytes(dir.resolve(
                "plugin/dra-device-metadata/" + namespace + "_with-metadata/req/metadata.json"))).metadata();
        assertThat(metadata.requests()).singleElement().satisfies(request -> assertThat(request.devices())
                .singleElement().satisfies(device -> assertThat(device.attributes()).isEqualTo(Map.of(
                        "driverName", new DeviceAttributeBuilder().withString(DRIVER).build(),
                        "pool", new DeviceAttributeBuilder().withString(NODE).build(),
                        "device", new DeviceAttributeBuilder().withString("device-00").build()))));
    }

    @Test
    void parametersThatAreNoObjectAtAllAreRejectedWithTheirType() throws Exception {
        start();
        ResourceClaim claim = simpleClaim("array-parameters");
        claim.getStatus().getAllocation().getDevices().setConfig(List.of(classConfig(DRIVER, List.of("x"))));

        // Called directly: the API server already refuses to store parameters that are not an object.
        var results = driver.prepareResourceClaims(List.of(claim));

        assertThat(results.get(claim.getMetadata().getUid()).error()).isEqualTo(
                "parameters in config #0: decoding admin parameters: expected a JSON object of strings, "
                        + "got array [\"x\"]");
    }

    @Test
    void claimsThatCannotBePreparedGetTheLibrarysClearErrors() throws Exception {
        start();
        ResourceClaim unallocated = cluster.client.resource(new ResourceClaimBuilder().withNewMetadata().withNamespace(namespace).withName("unallocated")
                .endMetadata().withNewSpec().endSpec().build()).create();
        ResourceClaim replaced = simpleClaim("replaced");
        replaced.getMetadata().setUid("00000000-0000-0000-0000-000000000001");
        ResourceClaim missing = simpleClaim("missing");
        cluster.client.resource(missing).withGracePeriod(0).delete();
        await().atMost(PATIENCE).until(() -> cluster.client.resource(missing).get() == null);

        NodePrepareResourcesResponse response = kubelet.prepare(draSocket(), unallocated, replaced, missing);

        assertThat(response.getClaimsOrThrow(unallocated.getMetadata().getUid()).getError())
                .isEqualTo("claim " + namespace + "/unallocated not allocated");
        assertThat(response.getClaimsOrThrow(replaced.getMetadata().getUid()).getError())
                .isEqualTo("claim " + namespace + "/replaced got replaced");
        assertThat(response.getClaimsOrThrow(missing.getMetadata().getUid()).getError())
                .startsWith("retrieve claim " + namespace + "/missing").contains("not found");
        assertThat(driver.preparedClaims()).isEmpty();
    }

    @Test
    void cdiFileProblemsFailTheClaimWithTheCause() throws Exception {
        FailingFiles files = new FailingFiles(new LocalFileOperations(dir.resolve("cdi")));
        driver = ExamplePlugin.builder(DRIVER, files).nodeName(NODE).kubernetesClient(cluster.client)
                .pluginOptions(plugin -> plugin.registrarDirectory(dir.resolve("registry"))
                        .pluginDataDirectory(dir.resolve("plugin")))
                .start();
        ResourceClaim claim = simpleClaim("disk-trouble");
        String uid = claim.getMetadata().getUid();

        files.failure = "disk full";
        assertThat(kubelet.prepare(draSocket(), claim).getClaimsOrThrow(uid).getError())
                .isEqualTo("failed to write CDI file: disk full");
        assertThat(driver.preparedClaims()).isEmpty();

        files.failure = null;
        kubelet.prepare(draSocket(), claim);
        files.failure = "read-only file system";
        assertThat(kubelet.unprepare(draSocket(), claim).getClaimsOrThrow(uid).getError())
                .isEqualTo("error removing CDI file: read-only file system");
        assertThat(driver.preparedClaims()).hasSize(1);

        files.failure = null;
        assertThat(kubelet.unprepare(draSocket(), claim).getClaimsOrThrow(uid).getError()).isEmpty();
        assertThat(cdiFile(claim, "req")).doesNotExist();
    }

    /** CDI file operations that fail with a given message while it is set. */
    private static final class FailingFiles implements FileOperations {
        private final FileOperations files;
        volatile String failure;

        FailingFiles(FileOperations files) {
            this.files = files;
        }

        @Override
        public void write(String fileName, byte[] content) throws IOException {
            if (failure != null) {
                throw new IOException(failure);
            }
            files.write(fileName, content);
        }

        @Override
        public void remove(String fileName) throws IOException {
            if (failure != null) {
                throw new IOException(failure);
            }
            files.remove(fileName);
        }
    }

    @Test
    void resourcesThatCannotBePublishedFailTheStartAndLeaveNoSockets() {
        assertThatThrownBy(() -> ExamplePlugin.builder(DRIVER, dir.resolve("cdi"))
                .nodeName(NODE)
                .driverResources(DriverResources.of(NODE, Pool.ofDevices(List.of())))
                .pluginOptions(plugin -> plugin.registrarDirectory(dir.resolve("registry"))
                        .pluginDataDirectory(dir.resolve("plugin")))
                .start())
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("start kubelet plugin: publish resources: no Kubernetes client was set to publish resources");
        assertThat(dir.resolve("registry").resolve(DRIVER + "-reg.sock")).doesNotExist();
        assertThat(dir.resolve("plugin/dra.sock")).doesNotExist();
    }

    @Test
    void prepareAndUnprepareAreIdempotent() throws Exception {
        start();
        ResourceClaim claim = simpleClaim("repeated");
        int repetitions = 25;

        NodePrepareResourcesResponse first = kubelet.prepare(draSocket(), claim);
        for (int i = 1; i < repetitions; i++) {
            assertThat(kubelet.prepare(draSocket(), claim)).as("prepare #%d", i + 1).isEqualTo(first);
            assertThat(driver.preparedClaims()).hasSize(1);
            assertThat(cdiFile(claim, "req")).exists();
        }
        for (int i = 0; i < repetitions; i++) {
            assertThat(kubelet.unprepare(draSocket(), claim).getClaimsOrThrow(claim.getMetadata().getUid())
                    .getError()).as("unprepare #%d", i + 1).isEmpty();
            assertThat(driver.preparedClaims()).isEmpty();
            assertThat(cdiFile(claim, "req")).doesNotExist();
        }
        assertThat(driver.countCalls(CallMatcher.NODE_PREPARE_RESOURCES)).isEqualTo(repetitions);
        assertThat(driver.countCalls(CallMatcher.NODE_UNPREPARE_RESOURCES)).isEqualTo(repetitions);
        assertThat(driver.grpcCalls()).allMatch(GrpcCall::succeeded);
    }

    @ParameterizedTest(name = "serialize={0}")
    @ValueSource(booleans = {true, false})
    void parallelPreparesAndUnpreparesLoseNoState(boolean serialize) throws Exception {
        start(builder -> builder.pluginOptions(plugin -> plugin.registrarDirectory(dir.resolve("registry"))
                .pluginDataDirectory(dir.resolve("plugin")).serialize(serialize)));
        List<ResourceClaim> claims = IntStream.range(0, 40).mapToObj(i -> simpleClaim("parallel-" + i)).toList();
        ExecutorService threads = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> calls = new ArrayList<>();
            for (ResourceClaim claim : claims) {
                // Each claim twice, so that repeated calls race with first ones.
                calls.add(threads.submit(() -> kubelet.prepare(draSocket(), claim)));
                calls.add(threads.submit(() -> kubelet.prepare(draSocket(), claim)));
            }
            for (Future<?> call : calls) {
                call.get(30, TimeUnit.SECONDS);
            }
            assertThat(driver.preparedClaims()).hasSize(claims.size());
            claims.forEach(claim -> assertThat(cdiFile(claim, "req")).exists());

            calls.clear();
            for (ResourceClaim claim : claims) {
                calls.add(threads.submit(() -> kubelet.unprepare(draSocket(), claim)));
            }
            for (Future<?> call : calls) {
                call.get(30, TimeUnit.SECONDS);
            }
        } finally {
            threads.shutdownNow();
        }
        assertThat(driver.preparedClaims()).isEmpty();
        try (var files = Files.list(dir.resolve("cdi"))) {
            assertThat(files).isEmpty();
        }
        assertThat(driver.grpcCalls()).hasSize(claims.size() * 3).allMatch(GrpcCall::succeeded);
    }

    @Test
    void prepareFailureModeFailsTheWholeCallUntilLifted() throws Exception {
        start();
        ResourceClaim claim = simpleClaim("failing");
        Runnable lift = driver.setNodePrepareResourcesFailureMode();

        assertThatThrownBy(() -> kubelet.prepare(draSocket(), claim))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNKNOWN);
                    assertThat(e.getStatus().getDescription())
                            .isEqualTo("prepare resource claims: simulated PrepareResources failure");
                });
        assertThat(driver.grpcCalls())
                .matches(CallMatcher.nodePrepareResourcesFailed())
                .matches(CallMatcher.nodePrepareResourcesFailedWith(ExamplePlugin.PREPARE_FAILURE))
                .noneMatch(GrpcCall::succeeded);
        assertThat(driver.preparedClaims()).isEmpty();

        lift.run();
        assertThat(kubelet.prepare(draSocket(), claim).getClaimsOrThrow(claim.getMetadata().getUid()).getError())
                .isEmpty();
        assertThat(driver.grpcCalls()).matches(CallMatcher.nodePrepareResourcesSucceeded());
    }

    @Test
    void unprepareFailureModeKeepsTheClaimPreparedUntilLifted() throws Exception {
        start();
        ResourceClaim claim = simpleClaim("failing-unprepare");
        kubelet.prepare(draSocket(), claim);
        Runnable lift = driver.setNodeUnprepareResourcesFailureMode();

        assertThatThrownBy(() -> kubelet.unprepare(draSocket(), claim))
                .hasMessageContaining("unprepare resource claims: simulated UnprepareResources failure");
        assertThat(driver.grpcCalls()).matches(CallMatcher.nodeUnprepareResourcesFailedWith(
                ExamplePlugin.UNPREPARE_FAILURE));
        assertThat(driver.preparedClaims()).hasSize(1);
        assertThat(cdiFile(claim, "req")).exists();
        int callsSoFar = driver.grpcCalls().size();
        assertThat(driver.grpcCalls()).doesNotMatch(CallMatcher.nodeUnprepareResourcesSucceededAfter(0));

        lift.run();
        kubelet.unprepare(draSocket(), claim);
        assertThat(driver.grpcCalls()).matches(CallMatcher.nodeUnprepareResourcesSucceededAfter(callsSoFar));
        assertThat(driver.preparedClaims()).isEmpty();
        assertThat(cdiFile(claim, "req")).doesNotExist();
    }

    @Test
    void blockedPrepareWaitsUntilUnblocked() throws Exception {
        start();
        ResourceClaim claim = simpleClaim("blocked");
        Runnable unblock = driver.blockNodePrepareResources();
        CompletableFuture<NodePrepareResourcesResponse> call =
                CompletableFuture.supplyAsync(() -> kubelet.prepare(draSocket(), claim));

        await().atMost(PATIENCE).until(driver::grpcCalls, CallMatcher.nodePrepareResourcesInProgress());
        assertThat(call).isNotDone();
        assertThat(driver.preparedClaims()).isEmpty();
        assertThat(cdiFile(claim, "req")).doesNotExist();

        unblock.run();
        unblock.run();
        assertThat(call.get(30, TimeUnit.SECONDS).getClaimsOrThrow(claim.getMetadata().getUid()).getError())
                .isEmpty();
        assertThat(driver.grpcCalls()).matches(CallMatcher.nodePrepareResourcesSucceeded())
                .noneMatch(GrpcCall::inProgress);
        // Unblocking twice must not let two claims through at once later.
        driver.blockNodePrepareResources().run();
    }

    @Test
    void blockedUnprepareWaitsUntilUnblocked() throws Exception {
        start();
        ResourceClaim claim = simpleClaim("blocked-unprepare");
        kubelet.prepare(draSocket(), claim);
        Runnable unblock = driver.blockNodeUnprepareResources();
        CompletableFuture<?> call = CompletableFuture.supplyAsync(() -> kubelet.unprepare(draSocket(), claim));

        await().atMost(PATIENCE).until(driver::grpcCalls, CallMatcher.nodeUnprepareResourcesInProgress());
        assertThat(driver.grpcCalls()).doesNotMatch(CallMatcher.nodeUnprepareResourcesSucceeded());
        assertThat(cdiFile(claim, "req")).exists();

        unblock.run();
        call.get(30, TimeUnit.SECONDS);
        assertThat(driver.grpcCalls()).matches(CallMatcher.nodeUnprepareResourcesSucceeded());
        assertThat(cdiFile(claim, "req")).doesNotExist();
    }

    @Test
    void everyServedVersionPreparesAndIsRecordedUnderItsFullMethodName() throws Exception {
        start(builder -> builder.pluginOptions(plugin -> plugin.registrarDirectory(dir.resolve("registry"))
                .pluginDataDirectory(dir.resolve("plugin")).nodeV1alpha4(true)));
        ResourceClaim claim = simpleClaim("versions");
        byte[] request = NodePrepareResourcesRequest.newBuilder().addClaims(Kubelet.claim(claim)).build()
                .toByteArray();
        var channel = kubelet.dial(draSocket());

        var v1beta1 = io.kdra.kubelet.api.dra.v1beta1.DRAPluginGrpc.newBlockingStub(channel).nodePrepareResources(
                io.kdra.kubelet.api.dra.v1beta1.NodePrepareResourcesRequest.parseFrom(request));
        var v1alpha4 = io.kdra.kubelet.api.dra.v1alpha4.NodeGrpc.newBlockingStub(channel).nodePrepareResources(
                io.kdra.kubelet.api.dra.v1alpha4.NodePrepareResourcesRequest.parseFrom(request));
        NodePrepareResourcesResponse v1 = kubelet.prepare(draSocket(), claim);

        assertThat(NodePrepareResourcesResponse.parseFrom(v1beta1.toByteArray())).isEqualTo(v1);
        assertThat(NodePrepareResourcesResponse.parseFrom(v1alpha4.toByteArray())).isEqualTo(v1);
        assertThat(driver.grpcCalls()).extracting(GrpcCall::fullMethod).containsExactly(
                "/k8s.io.kubelet.pkg.apis.dra.v1beta1.DRAPlugin/NodePrepareResources",
                "/v1alpha3.Node/NodePrepareResources",
                "/k8s.io.kubelet.pkg.apis.dra.v1.DRAPlugin/NodePrepareResources");
        assertThat(driver.countCalls(CallMatcher.NODE_PREPARE_RESOURCES)).isEqualTo(3);
    }

    @Test
    void callsAreCountedByMethodSuffixAndResetForgetsThem() throws Exception {
        start();
        ResourceClaim claim = simpleClaim("counted");
        kubelet.register(driver.kubeletPlugin().registrationSocket());
        kubelet.prepare(draSocket(), claim);
        kubelet.prepare(draSocket(), claim);
        kubelet.unprepare(draSocket(), claim);

        assertThat(driver.countCalls("/NodePrepareResources")).isEqualTo(2);
        assertThat(driver.countCalls("/NodeUnprepareResources")).isEqualTo(1);
        assertThat(driver.countCalls("/GetInfo")).isEqualTo(1);
        assertThat(driver.grpcCalls())
                .matches(CallMatcher.calledTimes(CallMatcher.NODE_PREPARE_RESOURCES, 2))
                .doesNotMatch(CallMatcher.calledTimes(CallMatcher.NODE_PREPARE_RESOURCES, 3));
        GrpcCall prepare = driver.grpcCalls().get(2);
        assertThat(prepare.fullMethod()).isEqualTo("/k8s.io.kubelet.pkg.apis.dra.v1.DRAPlugin/NodePrepareResources");
        assertThat(prepare.request()).isEqualTo(NodePrepareResourcesRequest.newBuilder()
                .addClaims(Kubelet.claim(claim)).build());
        assertThat(prepare.response()).isInstanceOf(NodePrepareResourcesResponse.class);

        driver.resetGrpcCalls();
        assertThat(driver.grpcCalls()).isEmpty();
        assertThat(driver.countCalls("/NodePrepareResources")).isZero();
    }

    @Test
    void healthUpdatesArePushedToTheStreamAndResentPeriodically() throws Exception {
        start(builder -> builder.healthResendPeriod(Duration.ofMillis(100))
                .pluginOptions(plugin -> plugin.registrarDirectory(dir.resolve("registry"))
                        .pluginDataDirectory(dir.resolve("plugin")).healthV1(true).healthV1alpha1(true)));
        BlockingQueue<NodeWatchResourcesResponse> reports = new LinkedBlockingQueue<>();
        ClientCall<NodeWatchResourcesRequest, NodeWatchResourcesResponse> watch = kubelet.dial(draSocket())
                .newCall(DRAResourceHealthGrpc.getNodeWatchResourcesMethod(), CallOptions.DEFAULT);
        ClientCalls.asyncServerStreamingCall(watch, NodeWatchResourcesRequest.getDefaultInstance(),
                new StreamObserver<>() {
                    @Override
                    public void onNext(NodeWatchResourcesResponse report) {
                        reports.add(report);
                    }

                    @Override
                    public void onError(Throwable t) {
                    }

                    @Override
                    public void onCompleted() {
                    }
                });
        assertThat(next(reports).getDevicesList()).as("the initial report").isEmpty();

        driver.updateDeviceHealth(new DeviceHealthUpdate(NODE, "device-01", HealthStatus.UNHEALTHY, "too hot"));
        driver.updateDeviceHealth(new DeviceHealthUpdate(NODE, "device-00", HealthStatus.HEALTHY, null));

        NodeWatchResourcesResponse report = next(reports);
        while (report.getDevicesCount() < 2) {
            report = next(reports);
        }
        assertThat(report.getDevicesList()).extracting(device -> device.getDevice().getDeviceName(),
                        device -> device.getHealth().name(), device -> device.getMessage())
                .containsExactly(tuple("device-00", "HEALTHY", ""),
                        tuple("device-01", "UNHEALTHY", "too hot"));
        assertThat(report.getDevices(0).getLastUpdatedTime()).isPositive();
        // Without further updates the report keeps coming.
        for (int i = 0; i < 3; i++) {
            assertThat(next(reports).getDevicesCount()).isEqualTo(2);
        }
        assertThat(driver.grpcCalls()).anyMatch(call -> call.fullMethod()
                .equals("/v1.DRAResourceHealth/NodeWatchResources") && call.inProgress());

        // The kubelet ends the stream by cancelling it; that is no failure.
        watch.cancel("kubelet stops watching", null);
        await().atMost(PATIENCE).until(driver::grpcCalls, calls -> calls.stream().anyMatch(call -> call.fullMethod()
                .equals("/v1.DRAResourceHealth/NodeWatchResources") && call.succeeded()));
    }

    private static NodeWatchResourcesResponse next(BlockingQueue<NodeWatchResourcesResponse> reports)
            throws InterruptedException {
        NodeWatchResourcesResponse report = reports.poll(30, TimeUnit.SECONDS);
        assertThat(report).as("a health report within 30 s").isNotNull();
        return report;
    }

    @Test
    void healthUpdatesNeedAHealthService() throws Exception {
        start();
        assertThatThrownBy(() -> driver.updateDeviceHealth(
                new DeviceHealthUpdate(NODE, "device-00", HealthStatus.HEALTHY, "")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("serves no DRAResourceHealth service");
    }

    @Test
    void updateStatusWritesTheClaimStatusWithTheDriversClient() throws Exception {
        start();
        ResourceClaim claim = simpleClaim("with-status");
        claim.getStatus().setDevices(List.of(new AllocatedDeviceStatusBuilder()
                .withDriver(DRIVER).withPool(NODE).withDevice("device-00")
                .withData(Map.of("uuid", "dev-1234")).build()));

        ResourceClaim updated = driver.updateStatus(claim);

        assertThat(updated.getStatus().getDevices()).hasSize(1);
        ResourceClaim stored = cluster.client.resource(claim).get();
        assertThat(cluster.client.getKubernetesSerialization().asJson(stored.getStatus().getDevices().get(0).getData()))
                .isEqualTo("{\"uuid\":\"dev-1234\"}");
    }

    @Test
    void driverResourcesArePublishedAsResourceSlicesOfTheNode() throws Exception {
        start(builder -> builder.driverResources(DriverResources.of(NODE, Pool.ofDevices(List.of(
                new DeviceBuilder().withName("device-00").build(), new DeviceBuilder().withName("device-01").build())))));

        await().atMost(PATIENCE).untilAsserted(() -> {
            List<ResourceSlice> slices = cluster.client.dynamicResourceAllocation().v1().resourcesSlices()
                    .withField("spec.driver", DRIVER).list().getItems();
            assertThat(slices).hasSize(1);
            ResourceSlice slice = slices.get(0);
            assertThat(slice.getSpec().getNodeName()).isEqualTo(NODE);
            assertThat(slice.getSpec().getPool().getName()).isEqualTo(NODE);
            assertThat(slice.getSpec().getDevices()).extracting(device -> device.getName())
                    .containsExactly("device-00", "device-01");
            assertThat(slice.getMetadata().getOwnerReferences()).singleElement()
                    .satisfies(owner -> assertThat(owner.getKind()).isEqualTo("Node"));
        });
        driver.stop();
        cluster.client.dynamicResourceAllocation().v1().resourcesSlices().withField("spec.driver", DRIVER).delete();
    }

    @Test
    void stopRemovesBothSocketsAndIsIdempotent() throws Exception {
        start();
        KubeletPlugin plugin = driver.kubeletPlugin();
        assertThat(plugin.registrationSocket()).exists();
        assertThat(plugin.draSocket()).exists();

        driver.stop();
        driver.stop();

        assertThat(plugin.registrationSocket()).doesNotExist();
        assertThat(plugin.draSocket()).doesNotExist();
    }
}
