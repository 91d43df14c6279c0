package io.kdra.plugin;

import static io.kdra.plugin.DraClient.claim;
import static io.kdra.plugin.DraClient.prepareRequest;
import static io.kdra.plugin.DraClient.unprepareRequest;
import static io.kdra.plugin.testing.Claims.result;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.kdra.kubelet.api.dra.v1.Claim;
import io.kdra.kubelet.api.dra.v1.Device;
import io.kdra.kubelet.api.dra.v1.NodePrepareResourceResponse;
import io.kdra.kubelet.api.dra.v1.NodePrepareResourcesResponse;
import io.kdra.kubelet.api.dra.v1.NodeUnprepareResourceResponse;
import io.kdra.plugin.testing.ApiServerFixture;
import io.kdra.plugin.testing.Claims;
import io.kdra.plugin.testing.PluginFixture;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** NodePrepareResources and NodeUnprepareResources over the DRA socket, claims coming from the mock API server. */
class DraServiceTest {

    private static final String DRIVER = "test.example.com";
    @RegisterExtension
    static final ApiServerFixture api = new ApiServerFixture();
    @RegisterExtension
    final PluginFixture fixture = new PluginFixture();
    private final KubernetesClient client = api.client();
    private final RecordingDriver driver = new RecordingDriver();
    private KubeletPlugin plugin;
    private String namespace;

    @BeforeEach
    void setUp() {
        namespace = api.namespace();
    }

    @Test
    void prepareFetchesEachClaimAndAnswersPerClaimUid() throws IOException {
        ResourceClaim first = Claims.createAllocated(client, namespace, "first",
                result("gpu", DRIVER, "node-1", "device-00"));
        ResourceClaim second = Claims.createAllocated(client, namespace, "second",
                result("multi/small", DRIVER, "node-1", "device-01"), result("other", DRIVER, "node-1", "device-02"));
        start(EnumSet.of(DraClient.V1));

        NodePrepareResourcesResponse response = DraClient.V1.prepare(dra(), prepareRequest(
                claim(namespace, "first", uid(first)), claim(namespace, "second", uid(second))));

        assertThat(driver.prepareCalls).containsExactly(List.of("first", "second"));
        assertThat(response.getClaimsMap()).containsOnlyKeys(uid(first), uid(second));
        assertThat(response.getClaimsOrThrow(uid(first)).getDevicesList()).containsExactly(Device.newBuilder()
                .addRequestNames("gpu").setPoolName("node-1").setDeviceName("device-00")
                .addCdiDeviceIds("test.example.com/test=claim-" + uid(first) + "-gpu").build());
        assertThat(response.getClaimsOrThrow(uid(second)).getDevicesList())
                .extracting(device -> List.copyOf(device.getRequestNamesList()))
                .as("the subrequest is stripped to its base request")
                .containsExactly(List.of("multi"), List.of("other"));
        assertThat(response.getClaimsOrThrow(uid(second)).getError()).isEmpty();
    }

    @Test
    void claimsThatCannotBePreparedGetTheirOwnErrorAndTheRestIsPrepared() throws IOException {
        ResourceClaim good = Claims.createAllocated(client, namespace, "good",
                result("gpu", DRIVER, "node-1", "device-00"));
        ResourceClaim unallocated = Claims.createUnallocated(client, namespace, "unallocated");
        Claims.createAllocated(client, namespace, "replaced", result("gpu", DRIVER, "node-1", "device-01"));
        start(EnumSet.of(DraClient.V1));

        NodePrepareResourcesResponse response = DraClient.V1.prepare(dra(), prepareRequest(
                claim(namespace, "good", uid(good)),
                claim(namespace, "unallocated", uid(unallocated)),
                claim(namespace, "replaced", "uid-of-an-older-claim"),
                claim(namespace, "missing", "uid-missing"),
                claim("", "", "uid-without-name")));

        assertThat(errors(response)).containsExactlyInAnyOrderEntriesOf(Map.of(
                uid(good), "",
                uid(unallocated), "claim " + namespace + "/unallocated not allocated",
                "uid-of-an-older-claim", "claim " + namespace + "/replaced got replaced",
                "uid-missing", "retrieve claim " + namespace
                        + "/missing: resourceclaims.resource.k8s.io \"missing\" not found",
                "uid-without-name", "claim / with UID uid-without-name: namespace and name are required"));
        assertThat(driver.prepareCalls).containsExactly(List.of("good"));
    }

    @Test
    void claimLookupFailuresNameTheClaim() throws IOException {
        plugin = fixture.start(builder(driver).claimLookup((ns, name) -> {
            throw new IOException("connection refused");
        }));

        NodePrepareResourcesResponse response = DraClient.V1.prepare(dra(),
                prepareRequest(claim(namespace, "c", "uid-c")));

        assertThat(response.getClaimsOrThrow("uid-c").getError())
                .isEqualTo("retrieve claim " + namespace + "/c: connection refused");
        assertThat(driver.prepareCalls).isEmpty();
    }

    @Test
    void aMalformedClaimFromTheLookupFailsTheCallWithAReason() throws IOException {
        ResourceClaim withoutMetadata = new ResourceClaimBuilder()
                .withNewStatus().withNewAllocation().endAllocation().endStatus().build();
        plugin = fixture.start(builder(driver).claimLookup((ns, name) -> withoutMetadata));

        assertThatThrownBy(() -> DraClient.V1.prepare(dra(), prepareRequest(claim(namespace, "c", "uid-c"))))
                .satisfies(e -> assertThat(Status.fromThrowable(e).getCode()).isEqualTo(Status.Code.INTERNAL))
                .hasMessageStartingWith("INTERNAL: internal error: java.lang.NullPointerException");
        assertThat(driver.prepareCalls).isEmpty();
    }

    @Test
    void perClaimDriverFailuresAreReportedPerClaim() throws IOException {
        ResourceClaim claim = Claims.createAllocated(client, namespace, "c", result("gpu", DRIVER, "p", "d"));
        driver.claimErrors.put("c", "device is on fire");
        start(EnumSet.of(DraClient.V1));

        NodePrepareResourcesResponse prepared = DraClient.V1.prepare(dra(), prepareRequest(
                claim(namespace, "c", uid(claim))));
        var unprepared = DraClient.V1.unprepare(dra(), unprepareRequest(claim(namespace, "c", uid(claim))));

        assertThat(prepared.getClaimsOrThrow(uid(claim))).isEqualTo(
                NodePrepareResourceResponse.newBuilder().setError("device is on fire").build());
        assertThat(unprepared.getClaimsOrThrow(uid(claim)).getError()).isEqualTo("device is on fire");
    }

    @Test
    void aDriverFailureFailsTheWholeCall() throws IOException {
        ResourceClaim claim = Claims.createAllocated(client, namespace, "c", result("gpu", DRIVER, "p", "d"));
        driver.failure = new IllegalStateException("simulated PrepareResources failure");
        start(EnumSet.of(DraClient.V1));

        assertThatThrownBy(() -> DraClient.V1.prepare(dra(), prepareRequest(claim(namespace, "c", uid(claim)))))
                .isInstanceOf(StatusRuntimeException.class)
                .hasMessage("UNKNOWN: prepare resource claims: simulated PrepareResources failure");
        assertThatThrownBy(() -> DraClient.V1.unprepare(dra(), unprepareRequest(claim(namespace, "c", uid(claim)))))
                .hasMessage("UNKNOWN: unprepare resource claims: simulated PrepareResources failure");
    }

    @Test
    void aDriverThatReportsAnInvalidCdiIdFailsTheCallNamingTheId() throws IOException {
        ResourceClaim claim = Claims.createAllocated(client, namespace, "c", result("gpu", DRIVER, "p", "d"));
        plugin = fixture.start(builder(new DraPlugin() {
            @Override
            public Map<String, PrepareResult> prepareResourceClaims(List<ResourceClaim> claims) {
                return Map.of(uid(claim), PrepareResult.prepared(List.of(
                        new PreparedDevice(List.of("gpu"), "p", "d", List.of("test.example.com/test=-bad")))));
            }

            @Override
            public Map<String, UnprepareResult> unprepareResourceClaims(List<ClaimRef> claims) {
                return Map.of();
            }
        }));

        assertThatThrownBy(() -> DraClient.V1.prepare(dra(), prepareRequest(claim(namespace, "c", uid(claim)))))
                .hasMessage("UNKNOWN: prepare resource claims: invalid device \"test.example.com/test=-bad\": "
                        + "invalid name \"-bad\", should start with a letter or digit");
    }

    @Test
    void aDriverThatReturnsNoResultsFailsTheCallWithAReadableError() throws IOException {
        ResourceClaim claim = Claims.createAllocated(client, namespace, "c", result("gpu", DRIVER, "p", "d"));
        Map<String, PrepareResult> withNullEntry = new HashMap<>();
        withNullEntry.put(uid(claim), null);
        List<Map<String, PrepareResult>> answers = new ArrayList<>(Arrays.asList(null, withNullEntry));
        Map<String, UnprepareResult> withNullUnprepareEntry = new HashMap<>();
        withNullUnprepareEntry.put(uid(claim), null);
        List<Map<String, UnprepareResult>> unprepareAnswers = new ArrayList<>(Arrays.asList(null,
                withNullUnprepareEntry));
        plugin = fixture.start(builder(new DraPlugin() {
            @Override
            public Map<String, PrepareResult> prepareResourceClaims(List<ResourceClaim> claims) {
                return answers.remove(0);
            }

            @Override
            public Map<String, UnprepareResult> unprepareResourceClaims(List<ClaimRef> claims) {
                return unprepareAnswers.remove(0);
            }
        }));

        assertThatThrownBy(() -> DraClient.V1.prepare(dra(), prepareRequest(claim(namespace, "c", uid(claim)))))
                .hasMessage("UNKNOWN: prepare resource claims: the driver returned no result map");
        assertThatThrownBy(() -> DraClient.V1.prepare(dra(), prepareRequest(claim(namespace, "c", uid(claim)))))
                .hasMessage("UNKNOWN: prepare resource claims: the driver returned a null entry for claim UID "
                        + uid(claim));
        assertThatThrownBy(() -> DraClient.V1.unprepare(dra(), unprepareRequest(claim(namespace, "c", uid(claim)))))
                .hasMessage("UNKNOWN: unprepare resource claims: the driver returned no result map");
        assertThatThrownBy(() -> DraClient.V1.unprepare(dra(), unprepareRequest(claim(namespace, "c", uid(claim)))))
                .hasMessage("UNKNOWN: unprepare resource claims: the driver returned a null entry for claim UID "
                        + uid(claim));
    }

    @Test
    void claimsTheDriverLeftOutGetAnErrorNamingThem() throws IOException {
        ResourceClaim answered = Claims.createAllocated(client, namespace, "answered", result("r", DRIVER, "p", "d"));
        ResourceClaim forgotten = Claims.createAllocated(client, namespace, "forgotten", result("r", DRIVER, "p", "e"));
        plugin = fixture.start(builder(new DraPlugin() {
            @Override
            public Map<String, PrepareResult> prepareResourceClaims(List<ResourceClaim> claims) {
                return Map.of(uid(answered), PrepareResult.prepared(List.of()));
            }

            @Override
            public Map<String, UnprepareResult> unprepareResourceClaims(List<ClaimRef> claims) {
                return Map.of(uid(answered), UnprepareResult.unprepared());
            }
        }));
        Claim[] both = {claim(namespace, "answered", uid(answered)), claim(namespace, "forgotten", uid(forgotten))};

        NodePrepareResourcesResponse prepared = DraClient.V1.prepare(dra(), prepareRequest(both));
        var unprepared = DraClient.V1.unprepare(dra(), unprepareRequest(both));

        String error = "the driver returned no result for claim " + namespace + "/forgotten";
        assertThat(errors(prepared)).isEqualTo(Map.of(uid(answered), "", uid(forgotten), error));
        assertThat(unprepared.getClaimsOrThrow(uid(forgotten)).getError()).isEqualTo(error);
        assertThat(unprepared.getClaimsOrThrow(uid(answered)).getError()).isEmpty();
    }

    @Test
    void repeatedPreparesOfOneClaimGetTheSameAnswer() throws IOException {
        ResourceClaim claim = Claims.createAllocated(client, namespace, "c",
                result("gpu/sub", DRIVER, "node-1", "device-00"));
        start(EnumSet.allOf(DraClient.class));
        NodePrepareResourcesResponse first = DraClient.V1.prepare(dra(), prepareRequest(
                claim(namespace, "c", uid(claim))));

        for (int i = 0; i < 20; i++) {
            DraClient version = DraClient.values()[i % DraClient.values().length];
            assertThat(version.prepare(dra(), prepareRequest(claim(namespace, "c", uid(claim)))))
                    .as("call %d over %s", i, version).isEqualTo(first);
        }
        assertThat(driver.prepareCalls).hasSize(21);
    }

    /**
     * Random batches of good and bad claims over random API versions: every claim gets its own answer, whatever else
     * is in the batch.
     */
    @Test
    void randomBatchesOfGoodAndBadClaimsAnswerEachClaimOnItsOwn() throws IOException {
        long seed = 20261203L;
        Random random = new Random(seed);
        Map<Claim, String> expected = new LinkedHashMap<>();
        for (int i = 0; i < 6; i++) {
            ResourceClaim good = Claims.createAllocated(client, namespace, "good-" + i,
                    result("req-" + i, DRIVER, "node-1", "device-0" + i));
            expected.put(claim(namespace, "good-" + i, uid(good)), "");
            expected.put(claim(namespace, "good-" + i, "older-" + i), "claim " + namespace + "/good-" + i
                    + " got replaced");
        }
        for (int i = 0; i < 2; i++) {
            ResourceClaim pending = Claims.createUnallocated(client, namespace, "pending-" + i);
            expected.put(claim(namespace, "pending-" + i, uid(pending)), "claim " + namespace + "/pending-" + i
                    + " not allocated");
        }
        expected.put(claim(namespace, "gone", "uid-gone"), "retrieve claim " + namespace
                + "/gone: resourceclaims.resource.k8s.io \"gone\" not found");
        ResourceClaim broken = Claims.createAllocated(client, namespace, "broken", result("r", DRIVER, "p", "d"));
        driver.claimErrors.put("broken", "device is on fire");
        expected.put(claim(namespace, "broken", uid(broken)), "device is on fire");
        start(EnumSet.allOf(DraClient.class));
        List<Claim> candidates = List.copyOf(expected.keySet());

        for (int call = 0; call < 40; call++) {
            List<Claim> shuffled = new ArrayList<>(candidates);
            Collections.shuffle(shuffled, random);
            List<Claim> batch = shuffled.subList(0, 1 + random.nextInt(6));
            DraClient version = DraClient.values()[random.nextInt(DraClient.values().length)];

            NodePrepareResourcesResponse response = version.prepare(dra(), prepareRequest(
                    batch.toArray(Claim[]::new)));

            for (Claim claim : batch) {
                NodePrepareResourceResponse answer = response.getClaimsOrThrow(claim.getUid());
                assertThat(answer.getError()).as("seed %d, call %d over %s, claim %s", seed, call, version, claim)
                        .isEqualTo(expected.get(claim));
                assertThat(answer.getDevicesCount()).isEqualTo(expected.get(claim).isEmpty() ? 1 : 0);
            }
            assertThat(response.getClaimsCount()).isEqualTo(batch.size());
        }
    }

    @Test
    void emptyRequestsGetEmptyResponsesWithoutCallingTheDriver() throws IOException {
        start(EnumSet.of(DraClient.V1));

        assertThat(DraClient.V1.prepare(dra(), prepareRequest()).getClaimsMap()).isEmpty();
        assertThat(DraClient.V1.unprepare(dra(), unprepareRequest()).getClaimsMap()).isEmpty();
        assertThat(driver.prepareCalls).isEmpty();
        assertThat(driver.unprepareCalls).isEmpty();
    }

    @Test
    void requestsWithoutClaimUidsOrWithDuplicatesAreRejected() throws IOException {
        start(EnumSet.of(DraClient.V1));

        assertThatThrownBy(() -> DraClient.V1.prepare(dra(), prepareRequest(claim(namespace, "c", ""))))
                .satisfies(e -> assertThat(Status.fromThrowable(e).getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT))
                .hasMessage("INVALID_ARGUMENT: claim #0 (" + namespace + "/c) has no UID");
        assertThatThrownBy(() -> DraClient.V1.unprepare(dra(), unprepareRequest(
                        claim(namespace, "a", "same"), claim(namespace, "b", "same"))))
                .hasMessage("INVALID_ARGUMENT: claim UID same appears more than once in the request");
    }

    @Test
    void unprepareHandsClaimReferencesToTheDriver() throws IOException {
        start(EnumSet.of(DraClient.V1));

        var response = DraClient.V1.unprepare(dra(), unprepareRequest(
                claim(namespace, "a", "uid-a"), claim(namespace, "b", "uid-b")));

        assertThat(driver.unprepareCalls).containsExactly(List.of(
                new ClaimRef(namespace, "a", "uid-a"), new ClaimRef(namespace, "b", "uid-b")));
        assertThat(response.getClaimsMap()).containsOnlyKeys("uid-a", "uid-b")
                .allSatisfy((uid, claim) -> assertThat(claim).isEqualTo(
                        NodeUnprepareResourceResponse.getDefaultInstance()));
    }

    @Test
    void requestsAndAnswersLargerThanOneHttp2FrameArriveWhole() throws IOException {
        start(EnumSet.of(DraClient.V1));
        // about 150 KB each way: many 16 KiB DATA frames, parsed from and written to the transport's own buffers
        List<ClaimRef> claims = IntStream.range(0, 2_000)
                .mapToObj(i -> new ClaimRef(namespace, "claim-" + i, "uid-" + i + "-" + "x".repeat(40)))
                .toList();

        var response = DraClient.V1.unprepare(dra(), unprepareRequest(claims.stream()
                .map(ref -> claim(ref.namespace(), ref.name(), ref.uid())).toArray(Claim[]::new)));

        assertThat(driver.unprepareCalls).containsExactly(claims);
        assertThat(response.getClaimsMap()).hasSize(claims.size())
                .containsOnlyKeys(claims.stream().map(ClaimRef::uid).toList());
    }

    @ParameterizedTest
    @EnumSource(DraClient.class)
    void eachVersionAloneServesTheDriverAndTheOthersAreUnimplemented(DraClient version) throws IOException {
        ResourceClaim claim = Claims.createAllocated(client, namespace, "c",
                result("gpu/sub", DRIVER, "node-1", "device-00"));
        start(EnumSet.of(version));

        NodePrepareResourcesResponse response = version.prepare(dra(), prepareRequest(
                claim(namespace, "c", uid(claim))));
        var unprepared = version.unprepare(dra(), unprepareRequest(claim(namespace, "c", uid(claim))));

        assertThat(response.getClaimsOrThrow(uid(claim)).getDevicesList()).singleElement()
                .satisfies(device -> assertThat(device.getRequestNamesList()).containsExactly("gpu"));
        assertThat(unprepared.getClaimsMap()).containsOnlyKeys(uid(claim));
        for (DraClient other : EnumSet.complementOf(EnumSet.of(version))) {
            assertThatThrownBy(() -> other.prepare(dra(), prepareRequest(claim(namespace, "c", uid(claim)))))
                    .satisfies(e -> assertThat(Status.fromThrowable(e).getCode())
                            .isEqualTo(Status.Code.UNIMPLEMENTED));
        }
    }

    @Test
    void allVersionsTogetherAnswerAlikeAndOnlyV1CarriesTheShareId() throws IOException {
        ResourceClaim claim = Claims.createAllocated(client, namespace, "c", new io.fabric8.kubernetes.api.model
                .resource.v1.DeviceRequestAllocationResultBuilder(result("gpu", DRIVER, "node-1", "device-00"))
                .withShareID("share-1").build());
        start(EnumSet.allOf(DraClient.class));

        NodePrepareResourcesResponse v1 = DraClient.V1.prepare(dra(), prepareRequest(
                claim(namespace, "c", uid(claim))));
        NodePrepareResourcesResponse v1beta1 = DraClient.V1BETA1.prepare(dra(), prepareRequest(
                claim(namespace, "c", uid(claim))));
        NodePrepareResourcesResponse v1alpha4 = DraClient.V1ALPHA4.prepare(dra(), prepareRequest(
                claim(namespace, "c", uid(claim))));

        Device withShareId = v1.getClaimsOrThrow(uid(claim)).getDevices(0);
        assertThat(withShareId.getShareId()).isEqualTo("share-1");
        NodePrepareResourcesResponse withoutShareId = v1.toBuilder()
                .putClaims(uid(claim), v1.getClaimsOrThrow(uid(claim)).toBuilder()
                        .setDevices(0, withShareId.toBuilder().clearShareId()).build())
                .build();
        assertThat(v1beta1).isEqualTo(withoutShareId);
        assertThat(v1alpha4).isEqualTo(withoutShareId);
    }

    private void start(Set<DraClient> versions) throws IOException {
        plugin = fixture.start(builder(driver)
                .nodeV1(versions.contains(DraClient.V1))
                .nodeV1beta1(versions.contains(DraClient.V1BETA1))
                .nodeV1alpha4(versions.contains(DraClient.V1ALPHA4)));
    }

    private KubeletPlugin.Builder builder(DraPlugin draPlugin) {
        return fixture.builder(DRIVER, draPlugin).kubernetesClient(client);
    }

    private ManagedChannel dra() {
        return fixture.dial(plugin.draSocket());
    }

    private static Map<String, String> errors(NodePrepareResourcesResponse response) {
        return response.getClaimsMap().entrySet().stream()
                .collect(Collectors.toMap(Map.Entry::getKey, entry -> entry.getValue().getError()));
    }

    private static String uid(ResourceClaim claim) {
        return claim.getMetadata().getUid();
    }
}
