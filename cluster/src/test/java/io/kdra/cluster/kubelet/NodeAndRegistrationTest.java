package io.kdra.cluster.kubelet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.grpc.ForwardingServerCall;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.kdra.kubelet.api.pluginregistration.v1.PluginInfo;
import io.kdra.testdriver.CallMatcher;
import io.kdra.testdriver.ExamplePlugin;
import io.kdra.testdriver.GrpcCall;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/** Node registration, the Lease, and plugin registration with each kubelet version's service choice. */
class NodeAndRegistrationTest {

    private static final Duration WAIT = Duration.ofSeconds(30);
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

    @Test
    void registersAReadyNodeAndRenewsItsLease() throws Exception {
        KubeletFixture.Node node = fixture.kubelet("1.34", config -> config.withServerPort(10250)
                .withLabels(java.util.Map.of("zone", "a")));

        Node object = fixture.admin.nodes().withName(node.name()).get();
        assertThat(object.getMetadata().getLabels()).containsEntry("kubernetes.io/hostname", node.name())
                .containsEntry("zone", "a");
        assertThat(object.getStatus().getConditions()).filteredOn(c -> c.getType().equals("Ready"))
                .extracting(NodeCondition::getStatus).containsExactly("True");
        assertThat(object.getStatus().getCapacity()).containsKeys("cpu", "memory", "pods");
        assertThat(object.getStatus().getAllocatable()).containsKeys("cpu", "memory", "pods");
        assertThat(object.getStatus().getDaemonEndpoints().getKubeletEndpoint().getPort()).isEqualTo(10250);
        assertThat(object.getStatus().getAddresses()).extracting(a -> a.getType() + "=" + a.getAddress())
                .containsExactlyInAnyOrder("InternalIP=127.0.0.1", "Hostname=" + node.name());
        assertThat(object.getStatus().getNodeInfo().getKubeletVersion()).isEqualTo("v1.34.0");

        Lease first = fixture.admin.leases().inNamespace("kube-node-lease").withName(node.name()).get();
        assertThat(first.getSpec().getHolderIdentity()).isEqualTo(node.name());
        ZonedDateTime renewed = first.getSpec().getRenewTime();
        await().atMost(WAIT).until(() -> fixture.admin.leases().inNamespace("kube-node-lease")
                .withName(node.name()).get().getSpec().getRenewTime().isAfter(renewed));
    }

    /**
     * Registration waits for the dial on a thread of the shared pool; the channel's state callbacks must not need a
     * thread of that pool too, or as many registrations at once as the pool has threads would each wait for a callback
     * that cannot run (500 nodes' drivers registering at once did).
     */
    @Test
    void registersAPluginOnAHostWithOneThread() throws Exception {
        try (KubeletHost single = KubeletHost.create(1)) {
            String name = fixture.uniqueNodeName();
            KubeletConfig config = KubeletConfig.of(name, fixture.base.resolve(name),
                    io.kdra.kube.KubernetesVersion.parse("1.34"));
            var runtime = new io.kdra.cluster.runtime.NoopRuntime(config.cdiDirectory(),
                    config.rootDirectory().resolve("containers"),
                    new io.kdra.cluster.runtime.SimulatedCgroups(config.hostPath("/sys/fs/cgroup")));
            SimulatedKubelet kubelet = new SimulatedKubelet(config, fixture.nodeClient(name), runtime, single);
            try {
                kubelet.start();
                ExamplePlugin driver = fixture.driver(new KubeletFixture.Node(name, kubelet, runtime),
                        "one-thread.example.com");
                await().atMost(WAIT).until(driver::isRegistered);
                driver.stop();
            } finally {
                kubelet.close();
                runtime.close();
            }
        }
    }

    @Test
    void kubelet134FollowsThePluginsOrderOfV1AndV1beta1() throws Exception {
        KubeletFixture.Node node = fixture.kubelet("1.34");
        ExamplePlugin driver = fixture.driver(node, "v1-first.example.com");
        await().atMost(WAIT).until(driver::isRegistered);

        KubeletFixture.Node other = fixture.kubelet("1.34");
        ExamplePlugin reordered = fixture.driver(other, "beta-first.example.com", 4,
                plugin -> plugin.unaryInterceptor(reverseSupportedVersions()));
        await().atMost(WAIT).until(reordered::isRegistered);

        assertThat(preparedMethod(node, driver)).isEqualTo("/k8s.io.kubelet.pkg.apis.dra.v1.DRAPlugin/"
                + "NodePrepareResources");
        assertThat(preparedMethod(other, reordered)).isEqualTo("/k8s.io.kubelet.pkg.apis.dra.v1beta1.DRAPlugin/"
                + "NodePrepareResources");
    }

    @Test
    void kubelet133PicksV1beta1AndKubelet131V1alpha4() throws Exception {
        KubeletFixture.Node node133 = fixture.kubelet("1.33");
        ExamplePlugin driver133 = fixture.driver(node133, "k133.example.com", 4, plugin -> plugin.nodeV1alpha4(true));
        await().atMost(WAIT).until(driver133::isRegistered);
        assertThat(preparedMethod(node133, driver133))
                .isEqualTo("/k8s.io.kubelet.pkg.apis.dra.v1beta1.DRAPlugin/NodePrepareResources");

        KubeletFixture.Node node131 = fixture.kubelet("1.31");
        ExamplePlugin driver131 = fixture.driver(node131, "k131.example.com", 4,
                plugin -> plugin.nodeV1alpha4(true).nodeV1(false).nodeV1beta1(false));
        await().atMost(WAIT).until(driver131::isRegistered);
        assertThat(preparedMethod(node131, driver131)).isEqualTo("/v1alpha3.Node/NodePrepareResources");
    }

    @Test
    void kubelet134RejectsAPluginWithOnlyV1alpha4() throws Exception {
        KubeletFixture.Node node = fixture.kubelet("1.34");
        ExamplePlugin driver = fixture.driver(node, "alpha-only.example.com", 4,
                plugin -> plugin.nodeV1alpha4(true).nodeV1(false).nodeV1beta1(false));

        await().atMost(WAIT).until(() -> driver.kubeletPlugin().registrationStatus().isPresent());
        assertThat(driver.kubeletPlugin().registrationStatus().get().error()).isEqualTo(
                "RegisterPlugin error -- plugin validation failed with err: invalid supported gRPC versions of DRA"
                        + " driver plugin alpha-only.example.com at endpoint " + driver.kubeletPlugin().draSocket()
                        + ": none of services supported by the plugin ([\"v1alpha3.NodeService\"]) are supported by"
                        + " the kubelet ([\"v1.DRAPlugin\" \"v1beta1.DRAPlugin\"])");
        assertThat(driver.isRegistered()).isFalse();
    }

    @Test
    void aFailedGetInfoIsRetriedUntilRegistrationSucceeds() throws Exception {
        KubeletFixture.Node node = fixture.kubelet("1.34");
        node.kubelet().stop();
        ExamplePlugin driver = fixture.driver(node, "retry.example.com");
        driver.setGetInfoError("not ready yet");
        node.kubelet().start();

        await().atMost(WAIT).until(driver::grpcCalls, CallMatcher.getInfoFailed());
        assertThat(driver.isRegistered()).isFalse();
        driver.setGetInfoError(null);
        await().atMost(WAIT).until(driver::isRegistered);
    }

    @Test
    void aFailedNotifyIsRetriedFromScratch() throws Exception {
        KubeletFixture.Node node = fixture.kubelet("1.34");
        node.kubelet().stop();
        ExamplePlugin driver = fixture.driver(node, "notify.example.com");
        driver.setNotifyRegistrationStatusError("busy");
        node.kubelet().start();

        await().atMost(WAIT).until(driver::grpcCalls, CallMatcher.notifyRegistrationStatusFailed());
        driver.setNotifyRegistrationStatusError(null);
        await().atMost(WAIT).until(driver::isRegistered);
    }

    @Test
    void aSecondInstanceCannotTakeTheEndpointOfTheFirst() throws Exception {
        KubeletFixture.Node node = fixture.kubelet("1.34");
        ExamplePlugin first = fixture.driver(node, "dup.example.com");
        await().atMost(WAIT).until(first::isRegistered);
        String taken = first.kubeletPlugin().draSocket().toString();

        ExamplePlugin second = fixture.driver(node, "dup.example.com", 4, plugin -> plugin.rollingUpdate("second")
                .unaryInterceptor(rewriteGetInfo(info -> info.toBuilder().setEndpoint(taken).build())));

        await().atMost(WAIT).until(() -> second.kubeletPlugin().registrationStatus().isPresent());
        assertThat(second.kubeletPlugin().registrationStatus().get().error()).isEqualTo(
                "RegisterPlugin error -- plugin registration failed with err: endpoint " + taken
                        + " already registered for DRA driver plugin dup.example.com");
        assertThat(first.isRegistered()).isTrue();
    }

    /** Which DRA method the kubelet calls: prepare a claim through a pod and look at the driver's history. */
    private static String preparedMethod(KubeletFixture.Node node, ExamplePlugin driver) throws Exception {
        String namespace = fixture.namespace();
        var pod = fixture.pod(namespace, "probe", spec -> spec.editSpec()
                .addNewResourceClaim().withName("c").withResourceClaimName("probe").endResourceClaim()
                .addNewContainer().withName("c").withImage("busybox").withNewResources().addNewClaim()
                .withName("c").endClaim().endResources().endContainer().endSpec());
        var claim = fixture.claim(namespace, "probe",
                KubeletFixture.result("req", driver.driverName(), node.name(), "device-00"));
        fixture.allocate(claim, List.of(KubeletFixture.result("req", driver.driverName(), node.name(), "device-00")),
                pod);
        fixture.bind(pod, node.name());
        await().atMost(WAIT).until(driver::grpcCalls, CallMatcher.nodePrepareResourcesSucceeded());
        return driver.grpcCalls().stream().map(GrpcCall::fullMethod)
                .filter(method -> method.endsWith("/NodePrepareResources")).findFirst().orElseThrow();
    }

    /** Rewrites GetInfo answers so that the plugin lists its services in the opposite order. */
    private static ServerInterceptor reverseSupportedVersions() {
        return rewriteGetInfo(info -> {
            List<String> reversed = new java.util.ArrayList<>(info.getSupportedVersionsList());
            java.util.Collections.reverse(reversed);
            return info.toBuilder().clearSupportedVersions().addAllSupportedVersions(reversed).build();
        });
    }

    /** Changes what the plugin answers to GetInfo. */
    private static ServerInterceptor rewriteGetInfo(java.util.function.UnaryOperator<PluginInfo> change) {
        return new ServerInterceptor() {
            @Override
            public <Q, A> ServerCall.Listener<Q> interceptCall(ServerCall<Q, A> call, Metadata headers,
                    ServerCallHandler<Q, A> next) {
                return next.startCall(new ForwardingServerCall.SimpleForwardingServerCall<>(call) {
                    @Override
                    @SuppressWarnings("unchecked")
                    public void sendMessage(A message) {
                        super.sendMessage(message instanceof PluginInfo info ? (A) change.apply(info) : message);
                    }
                }, headers);
            }
        };
    }
}
