package io.kdra.cluster.kubelet;

import static io.kdra.cluster.kubelet.KubeletFixture.result;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.kdra.cluster.Timing;
import io.kdra.kubelet.api.dra.v1.NodePrepareResourcesRequest;
import io.kdra.testdriver.CallMatcher;
import io.kdra.testdriver.ExamplePlugin;
import io.kdra.testdriver.GrpcCall;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.zip.CRC32;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The DRA manager through pods: prepare, CDI, checkpoint, errors and retries, unprepare, reconcile, metrics. */
class DraPodTest {

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final String DRIVER = "test-driver.cdi.k8s.io";
    private static final KubeletFixture fixture = create();

    private static KubeletFixture create() {
        try {
            return new KubeletFixture();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @AfterAll
    static void close() throws Exception {
        fixture.close();
    }

    /** A pod whose containers all use the pod claim {@code c} (claim {@code claimName}). */
    private static UnaryOperator<PodBuilder> withClaim(String claimName, String... containers) {
        return builder -> {
            var spec = builder.editSpec().addNewResourceClaim().withName("c").withResourceClaimName(claimName)
                    .endResourceClaim();
            for (String container : containers) {
                spec = spec.addNewContainer().withName(container).withImage("busybox").withNewResources()
                        .addNewClaim().withName("c").endClaim().endResources().endContainer();
            }
            return spec.endSpec();
        };
    }

    /** Creates a claim for one device of the driver on the node, allocates and reserves it, then binds the pods. */
    private static ResourceClaim allocateAndBind(KubeletFixture.Node node, String driver, String claimName,
            String device, Pod... pods) throws Exception {
        var results = List.of(result("req", driver, node.name(), device));
        ResourceClaim claim = fixture.claim(pods[0].getMetadata().getNamespace(), claimName,
                results.toArray(new io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult[0]));
        claim = fixture.allocate(claim, results, pods);
        for (Pod pod : pods) {
            fixture.bind(pod, node.name());
        }
        return claim;
    }

    private static boolean running(Pod pod) {
        Pod current = fixture.get(pod);
        return current != null && "Running".equals(current.getStatus().getPhase())
                && current.getStatus().getContainerStatuses().stream().allMatch(c -> Boolean.TRUE.equals(c.getReady()));
    }

    private static boolean gone(Pod pod) {
        return fixture.get(pod) == null;
    }

    @Test
    void aPodWithAClaimRunsWithTheDriversCdiEnvironmentAndIsUnpreparedAfterDeletion() throws Exception {
        KubeletFixture.Node node = fixture.kubelet("1.34");
        ExamplePlugin driver = fixture.driver(node, DRIVER);
        await().atMost(WAIT).until(driver::isRegistered);
        String namespace = fixture.namespace();
        Pod pod = fixture.pod(namespace, "p", withClaim("claim-1", "ctr"));
        ResourceClaim claim = allocateAndBind(node, DRIVER, "claim-1", "device-00", pod);

        await().atMost(WAIT).until(() -> running(pod));
        var instance = KubeletFixture.running(node, namespace, "p", "ctr");
        String cdiId = DRIVER + "/test=claim-" + claim.getMetadata().getUid() + "-req";
        assertThat(instance.config().cdiDevices()).containsExactly(cdiId);
        assertThat(KubeletFixture.env(node, namespace, "p", "ctr")).containsEntry("claim_claim_1_req", "true");
        Pod running = fixture.get(pod);
        assertThat(running.getStatus().getPodIP()).isEqualTo("127.0.0.1");
        assertThat(running.getStatus().getHostIP()).isEqualTo("127.0.0.1");
        assertThat(running.getStatus().getConditions()).extracting(c -> c.getType() + "=" + c.getStatus())
                .contains("PodReadyToStartContainers=True", "Initialized=True", "ContainersReady=True",
                        "Ready=True");
        var containerStatus = running.getStatus().getContainerStatuses().get(0);
        assertThat(containerStatus.getState().getRunning()).isNotNull();
        assertThat(containerStatus.getContainerID()).startsWith("kdra://");
        assertThat(containerStatus.getStarted()).isTrue();
        assertThat(fixture.events(pod, "Started")).isNotEmpty();

        JsonNode outer = JsonMapper.builder().build().readTree(Files.readString(node.kubelet().checkpointFile()));
        String data = outer.get("Data").asString();
        CRC32 crc = new CRC32();
        crc.update(data.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        assertThat(outer.get("Checksum").asLong()).isEqualTo(crc.getValue());
        JsonNode checkpoint = JsonMapper.builder().build().readTree(data);
        assertThat(checkpoint.get("kind").asString()).isEqualTo("DRACheckpoint");
        assertThat(checkpoint.get("apiVersion").asString()).isEqualTo("checkpoint.dra.kubelet.k8s.io/v1");
        JsonNode entry = checkpoint.get("Entries").get(0);
        assertThat(entry.get("ClaimUID").asString()).isEqualTo(claim.getMetadata().getUid());
        assertThat(entry.get("ClaimName").asString()).isEqualTo("claim-1");
        assertThat(entry.get("Namespace").asString()).isEqualTo(namespace);
        assertThat(entry.get("PodUIDs").propertyNames()).containsExactly(pod.getMetadata().getUid());
        JsonNode device = entry.get("DriverState").get(DRIVER).get("Devices").get(0);
        assertThat(device.toString()).isEqualTo("{\"PoolName\":\"" + node.name() + "\",\"DeviceName\":\"device-00\","
                + "\"ShareID\":null,\"RequestNames\":[\"req\"],\"CDIDeviceIDs\":[\"" + cdiId + "\"]}");

        assertThat(node.kubelet().metrics()).contains("dra_resource_claims_in_use{driver_name=\"<any>\"} 1\n",
                "dra_resource_claims_in_use{driver_name=\"" + DRIVER + "\"} 1\n");

        fixture.admin.resource(fixture.get(pod)).delete();
        await().atMost(WAIT).until(() -> gone(pod));
        assertThat(driver.grpcCalls()).matches(CallMatcher.nodeUnprepareResourcesSucceeded());
        assertThat(instance.exit()).isDone();
        assertThat(fixture.events(pod, "Killing")).isNotEmpty();
        assertThat(node.kubelet().metrics()).contains("dra_resource_claims_in_use{driver_name=\"<any>\"} 0\n");
        assertThat(JsonMapper.builder().build().readTree(JsonMapper.builder().build()
                .readTree(Files.readString(node.kubelet().checkpointFile())).get("Data").asString())
                .get("Entries")).isEmpty();
    }

    @Test
    void aPodWaitsForItsDriverToRegisterThenRuns() throws Exception {
        KubeletFixture.Node node = fixture.kubelet("1.34");
        String namespace = fixture.namespace();
        Pod pod = fixture.pod(namespace, "p", withClaim("late", "ctr"));
        allocateAndBind(node, "late.example.com", "late", "device-00", pod);

        await().atMost(WAIT).until(() -> !fixture.events(pod, "FailedPrepareDynamicResources").isEmpty());
        var event = fixture.events(pod, "FailedPrepareDynamicResources").get(0);
        assertThat(event.getType()).isEqualTo("Warning");
        assertThat(event.getMessage()).isEqualTo("Failed to prepare dynamic resources: prepare dynamic resources: "
                + "DRA driver late.example.com is not registered");
        Pod pending = fixture.get(pod);
        assertThat(pending.getStatus().getPhase()).isEqualTo("Pending");
        assertThat(pending.getStatus().getContainerStatuses().get(0).getState().getWaiting().getReason())
                .isEqualTo("ContainerCreating");

        fixture.driver(node, "late.example.com");
        await().atMost(WAIT).until(() -> running(pod));
    }

    @Test
    void aFailedPrepareIsAWarningEventAndIsRetried() throws Exception {
        KubeletFixture.Node node = fixture.kubelet("1.34");
        ExamplePlugin driver = fixture.driver(node, DRIVER);
        Runnable lift = driver.setNodePrepareResourcesFailureMode();
        await().atMost(WAIT).until(driver::isRegistered);
        String namespace = fixture.namespace();
        Pod pod = fixture.pod(namespace, "p", withClaim("c", "ctr"));
        allocateAndBind(node, DRIVER, "c", "device-00", pod);

        await().atMost(WAIT).until(() -> fixture.events(pod, "FailedPrepareDynamicResources").stream()
                .anyMatch(e -> e.getMessage().equals("Failed to prepare dynamic resources: prepare dynamic resources: "
                        + "NodePrepareResources: rpc error: code = Unknown desc = prepare resource claims: "
                        + ExamplePlugin.PREPARE_FAILURE)));
        await().atMost(WAIT).until(() -> driver.countCalls("/NodePrepareResources") >= 2);
        lift.run();
        await().atMost(WAIT).until(() -> running(pod));
    }

    @Test
    void aBlockedPrepareTimesOutAfterTheCallTimeoutAndIsRetried() throws Exception {
        KubeletFixture.Node node = fixture.kubelet("1.34",
                config -> config.withTiming(Timing.FAST.withPluginCallTimeout(Duration.ofSeconds(1))));
        ExamplePlugin driver = fixture.driver(node, DRIVER);
        Runnable unblock = driver.blockNodePrepareResources();
        await().atMost(WAIT).until(driver::isRegistered);
        String namespace = fixture.namespace();
        Pod pod = fixture.pod(namespace, "p", withClaim("c", "ctr"));
        allocateAndBind(node, DRIVER, "c", "device-00", pod);

        await().atMost(WAIT).until(() -> fixture.events(pod, "FailedPrepareDynamicResources").stream()
                .anyMatch(e -> e.getMessage().startsWith("Failed to prepare dynamic resources: prepare dynamic "
                        + "resources: NodePrepareResources: rpc error: code = DeadlineExceeded desc = ")));
        unblock.run();
        await().atMost(WAIT).until(() -> running(pod));
    }

    @Test
    void onePrepareCallPerDriverPerPod() throws Exception {
        KubeletFixture.Node node = fixture.kubelet("1.34");
        ExamplePlugin first = fixture.driver(node, "first.example.com");
        ExamplePlugin second = fixture.driver(node, "second.example.com");
        await().atMost(WAIT).until(() -> first.isRegistered() && second.isRegistered());
        String namespace = fixture.namespace();
        Pod pod = fixture.pod(namespace, "p", builder -> builder.editSpec()
                .addNewResourceClaim().withName("a").withResourceClaimName("a").endResourceClaim()
                .addNewResourceClaim().withName("b").withResourceClaimName("b").endResourceClaim()
                .addNewResourceClaim().withName("both").withResourceClaimName("both").endResourceClaim()
                .addNewContainer().withName("ctr").withImage("busybox").withNewResources()
                .addNewClaim().withName("a").endClaim().addNewClaim().withName("b").endClaim()
                .addNewClaim().withName("both").endClaim().endResources().endContainer().endSpec());
        var a = List.of(result("req", "first.example.com", node.name(), "device-00"));
        var b = List.of(result("req", "second.example.com", node.name(), "device-00"));
        var both = List.of(result("one", "first.example.com", node.name(), "device-01"),
                result("two", "second.example.com", node.name(), "device-01"));
        fixture.allocate(fixture.claim(namespace, "a", a.get(0)), a, pod);
        fixture.allocate(fixture.claim(namespace, "b", b.get(0)), b, pod);
        fixture.allocate(fixture.claim(namespace, "both", both.get(0), both.get(1)), both, pod);
        fixture.bind(pod, node.name());

        await().atMost(WAIT).until(() -> running(pod));
        assertThat(claimsPrepared(first)).containsExactly(List.of("a", "both"));
        assertThat(claimsPrepared(second)).containsExactly(List.of("b", "both"));
        var env = KubeletFixture.env(node, namespace, "p", "ctr");
        assertThat(env).containsKeys("claim_a_req", "claim_b_req", "claim_both_one", "claim_both_two");
    }

    /** The claims of each NodePrepareResources call the driver got, by name. */
    private static List<List<String>> claimsPrepared(ExamplePlugin driver) {
        return driver.grpcCalls().stream().filter(call -> call.fullMethod().endsWith("/NodePrepareResources"))
                .map(GrpcCall::request).map(request -> ((NodePrepareResourcesRequest) request).getClaimsList()
                        .stream().map(io.kdra.kubelet.api.dra.v1.Claim::getName).sorted().toList())
                .toList();
    }

    @Test
    void aClaimSharedAcrossPodsAndContainersIsPreparedOnceAndUnpreparedAfterTheLastPod() throws Exception {
        KubeletFixture.Node node = fixture.kubelet("1.34");
        ExamplePlugin driver = fixture.driver(node, DRIVER);
        await().atMost(WAIT).until(driver::isRegistered);
        String namespace = fixture.namespace();
        Pod first = fixture.pod(namespace, "first", withClaim("shared", "a", "b"));
        Pod second = fixture.pod(namespace, "second", withClaim("shared", "a"));
        var results = List.of(result("req", DRIVER, node.name(), "device-00"));
        fixture.allocate(fixture.claim(namespace, "shared", results.get(0)), results, first, second);
        fixture.bind(first, node.name());
        await().atMost(WAIT).until(() -> running(first));
        // As upstream, pods starting at the same time could each call the driver; one after the other they do not.
        fixture.bind(second, node.name());

        await().atMost(WAIT).until(() -> running(second));
        assertThat(driver.countCalls("/NodePrepareResources")).isEqualTo(1);
        for (var container : List.of(List.of("first", "a"), List.of("first", "b"), List.of("second", "a"))) {
            assertThat(KubeletFixture.env(node, namespace, container.get(0), container.get(1)))
                    .containsEntry("claim_shared_req", "true");
        }

        fixture.admin.resource(fixture.get(first)).delete();
        await().atMost(WAIT).until(() -> gone(first));
        assertThat(driver.countCalls("/NodeUnprepareResources")).isZero();
        fixture.admin.resource(fixture.get(second)).delete();
        await().atMost(WAIT).until(() -> gone(second));
        await().atMost(WAIT).until(driver::grpcCalls, CallMatcher.nodeUnprepareResourcesSucceeded());
    }

    @Test
    void aForceDeletedPodIsUnpreparedAndItsClaimNameWaitsForThat() throws Exception {
        KubeletFixture.Node node = fixture.kubelet("1.34");
        ExamplePlugin driver = fixture.driver(node, DRIVER);
        await().atMost(WAIT).until(driver::isRegistered);
        String namespace = fixture.namespace();
        Pod old = fixture.pod(namespace, "old", withClaim("c", "ctr"));
        ResourceClaim oldClaim = allocateAndBind(node, DRIVER, "c", "device-00", old);
        await().atMost(WAIT).until(() -> running(old));

        Runnable unblock = driver.blockNodeUnprepareResources();
        fixture.admin.resource(fixture.get(old)).withGracePeriod(0).delete();
        await().atMost(WAIT).until(driver::grpcCalls, CallMatcher.nodeUnprepareResourcesInProgress());
        fixture.admin.resource(oldClaim).delete();
        await().atMost(WAIT).until(() -> fixture.admin.resource(oldClaim).get() == null);
        Pod replacement = fixture.pod(namespace, "new", withClaim("c", "ctr"));
        allocateAndBind(node, DRIVER, "c", "device-01", replacement);

        await().atMost(WAIT).until(() -> fixture.events(replacement, "FailedPrepareDynamicResources").stream()
                .anyMatch(e -> e.getMessage().equals("Failed to prepare dynamic resources: prepare dynamic resources: "
                        + "old ResourceClaim with same name c and different UID " + oldClaim.getMetadata().getUid()
                        + " still exists (previous pod force-deleted?!)")));
        unblock.run();
        await().atMost(WAIT).until(driver::grpcCalls, CallMatcher.nodeUnprepareResourcesSucceeded());
        await().atMost(WAIT).until(() -> running(replacement));
    }

    @Test
    void theReconcileLoopUnpreparesAPodForceDeletedWhileTheKubeletWasDown() throws Exception {
        KubeletFixture.Node node = fixture.kubelet("1.34");
        ExamplePlugin driver = fixture.driver(node, DRIVER);
        await().atMost(WAIT).until(driver::isRegistered);
        String namespace = fixture.namespace();
        Pod pod = fixture.pod(namespace, "p", withClaim("c", "ctr"));
        allocateAndBind(node, DRIVER, "c", "device-00", pod);
        await().atMost(WAIT).until(() -> running(pod));
        var container = KubeletFixture.running(node, namespace, "p", "ctr");

        node.kubelet().stop();
        fixture.admin.resource(fixture.get(pod)).withGracePeriod(0).delete();
        await().atMost(WAIT).until(() -> gone(pod));
        assertThat(driver.countCalls("/NodeUnprepareResources")).isZero();
        node.kubelet().start();

        await().atMost(WAIT).until(driver::grpcCalls, CallMatcher.nodeUnprepareResourcesSucceeded());
        await().atMost(WAIT).until(() -> container.exit().isDone());
        assertThat(node.kubelet().metrics()).contains("dra_resource_claims_in_use{driver_name=\"<any>\"} 0\n");
    }

    @Test
    void anUnresolvableCdiDeviceIsACreateContainerError() throws Exception {
        KubeletFixture.Node node = fixture.kubelet("1.34");
        ExamplePlugin driver = fixture.driver(node, DRIVER);
        await().atMost(WAIT).until(driver::isRegistered);
        String namespace = fixture.namespace();
        Pod pod = fixture.pod(namespace, "p", withClaim("c", "ctr"));
        ResourceClaim claim = allocateAndBind(node, DRIVER, "c", "device-00", pod);
        await().atMost(WAIT).until(() -> running(pod));

        Files.delete(node.kubelet().cdiDirectory().resolve(driver.cdiFileName(claim.getMetadata().getUid(), "req")));
        // The container dies on its own (as if OOM-killed); its restart cannot resolve the CDI device any more.
        KubeletFixture.running(node, namespace, "p", "ctr").stop(Duration.ZERO);

        var waiting = await().atMost(WAIT).until(() -> fixture.get(pod).getStatus().getContainerStatuses().stream()
                .map(c -> c.getState().getWaiting()).filter(w -> w != null).findFirst().orElse(null),
                w -> w != null && "CreateContainerError".equals(w.getReason()));
        assertThat(waiting.getMessage()).isEqualTo("failed to create containerd container: CDI device injection "
                + "failed: unresolvable CDI devices " + DRIVER + "/test=claim-" + claim.getMetadata().getUid() + "-req");
        assertThat(fixture.events(pod, "Failed")).extracting(e -> e.getMessage())
                .contains("Error: " + waiting.getMessage());
    }
}
