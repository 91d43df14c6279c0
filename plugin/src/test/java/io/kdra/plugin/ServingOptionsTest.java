package io.kdra.plugin;

import static io.kdra.plugin.DraClient.claim;
import static io.kdra.plugin.DraClient.prepareRequest;
import static io.kdra.plugin.testing.Claims.result;
import static io.kdra.plugin.testing.Listeners.acceptingFrom;
import static io.kdra.plugin.testing.Listeners.unixServer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;
import io.kdra.kubelet.api.dra.v1.NodePrepareResourcesResponse;
import io.kdra.kubelet.api.drahealth.v1.DRAResourceHealthGrpc;
import io.kdra.kubelet.api.drahealth.v1.NodeWatchResourcesRequest;
import io.kdra.kubelet.api.drahealth.v1.NodeWatchResourcesResponse;
import io.kdra.kubelet.api.pluginregistration.v1.InfoRequest;
import io.kdra.kubelet.api.pluginregistration.v1.RegistrationGrpc;
import io.kdra.plugin.testing.Gate;
import io.kdra.plugin.testing.PluginFixture;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.FileChannel;
import java.nio.channels.OverlappingFileLockException;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Interceptors, listener injection, rolling updates and call serialization. */
class ServingOptionsTest {

    private static final String DRIVER = "test.example.com";

    @RegisterExtension
    final PluginFixture fixture = new PluginFixture();
    private final Map<String, ResourceClaim> claims = new ConcurrentHashMap<>();

    @Test
    void interceptorsSeeTheirKindOfCallsOnBothSocketsInTheOrderAdded() throws Exception {
        List<String> seen = new CopyOnWriteArrayList<>();
        KubeletPlugin plugin = fixture.start(builder()
                .healthV1(true)
                .unaryInterceptor(recording("first", seen))
                .unaryInterceptor(recording("second", seen))
                .streamInterceptor(recording("stream", seen))
                .streamInterceptor(recording("stream-2", seen)));

        RegistrationGrpc.newBlockingStub(fixture.dial(plugin.registrationSocket()))
                .getInfo(InfoRequest.getDefaultInstance());
        DraClient.V1.prepare(fixture.dial(plugin.draSocket()), prepareRequest());
        CountDownLatch opened = new CountDownLatch(1);
        DRAResourceHealthGrpc.newStub(fixture.dial(plugin.draSocket())).nodeWatchResources(
                NodeWatchResourcesRequest.getDefaultInstance(), new StreamObserver<>() {
                    @Override
                    public void onNext(NodeWatchResourcesResponse value) {
                        opened.countDown();
                    }

                    @Override
                    public void onError(Throwable t) {
                    }

                    @Override
                    public void onCompleted() {
                    }
                });
        plugin.reportHealth(List.of());
        awaitLatch(opened);

        assertThat(seen).containsExactly(
                "first /pluginregistration.Registration/GetInfo",
                "second /pluginregistration.Registration/GetInfo",
                "first /k8s.io.kubelet.pkg.apis.dra.v1.DRAPlugin/NodePrepareResources",
                "second /k8s.io.kubelet.pkg.apis.dra.v1.DRAPlugin/NodePrepareResources",
                "stream /v1.DRAResourceHealth/NodeWatchResources",
                "stream-2 /v1.DRAResourceHealth/NodeWatchResources");
    }

    @Test
    void driverCallsRunOnWorkerThreadsUnlessTheDriverChoosesTheEventLoop() throws Exception {
        List<String> threads = new CopyOnWriteArrayList<>();
        RecordingDriver driver = new RecordingDriver();
        driver.hook = () -> threads.add(Thread.currentThread().getName());
        String uid = allocatedClaim("ns", "c");
        KubeletPlugin pooled = fixture.start(builder(driver).pluginDataDirectory(fixture.resolve("pooled")));
        KubeletPlugin onLoop = fixture.start(builder(driver).pluginDataDirectory(fixture.resolve("on-loop"))
                .registrarDirectory(fixture.resolve("registry-on-loop")).callsOnEventLoop(true));

        DraClient.V1.prepare(fixture.dial(pooled.draSocket()), prepareRequest(claim("ns", "c", uid)));
        DraClient.V1.prepare(fixture.dial(onLoop.draSocket()), prepareRequest(claim("ns", "c", uid)));

        assertThat(threads).satisfiesExactly(
                thread -> assertThat(thread).startsWith("kdra-plugin-grpc"),
                thread -> assertThat(thread).startsWith("kdra-plugin-io"));
    }

    @Test
    void anInterceptorCanRejectCallsBeforeTheDriverSeesThem() throws Exception {
        RecordingDriver driver = new RecordingDriver();
        KubeletPlugin plugin = fixture.start(builder(driver).unaryInterceptor(new ServerInterceptor() {
            @Override
            public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
                    ServerCallHandler<Q, R> next) {
                call.close(Status.PERMISSION_DENIED.withDescription("not the kubelet"), new Metadata());
                return new ServerCall.Listener<>() { };
            }
        }));
        String uid = allocatedClaim("ns", "c");

        assertThatThrownBy(() -> DraClient.V1.prepare(fixture.dial(plugin.draSocket()),
                prepareRequest(claim("ns", "c", uid))))
                .hasMessage("PERMISSION_DENIED: not the kubelet");
        assertThat(driver.prepareCalls).isEmpty();
    }

    @Test
    void injectedListenersServeBothSocketsWithoutCreatingThem() throws IOException {
        Map<Path, ServerSocketChannel> proxies = new ConcurrentHashMap<>();
        ListenerFactory proxied = socketPath -> {
            // An in-JVM source of connections: a proxy socket elsewhere, as a remote node's proxy would be.
            ServerSocketChannel proxy = unixServer(fixture.resolve("proxy-" + proxies.size() + ".sock"));
            proxies.put(socketPath, proxy);
            return acceptingFrom(proxy);
        };
        KubeletPlugin plugin = fixture.start(builder().registrarListener(proxied).pluginListener(proxied));

        assertThat(proxies).containsOnlyKeys(plugin.registrationSocket(), plugin.draSocket());
        assertThat(plugin.registrationSocket()).doesNotExist();
        assertThat(plugin.draSocket()).doesNotExist();
        var info = RegistrationGrpc.newBlockingStub(fixture.dial(address(proxies.get(plugin.registrationSocket()))))
                .getInfo(InfoRequest.getDefaultInstance());
        assertThat(info.getEndpoint()).isEqualTo(plugin.draSocket().toString());
        String uid = allocatedClaim("ns", "c");
        NodePrepareResourcesResponse response = DraClient.V1.prepare(
                fixture.dial(address(proxies.get(plugin.draSocket()))), prepareRequest(claim("ns", "c", uid)));
        assertThat(response.getClaimsOrThrow(uid).getDevicesCount()).isEqualTo(1);

        plugin.stop();

        assertThat(proxies.values()).noneMatch(ServerSocketChannel::isOpen);
    }

    @Test
    void injectedConnectionsMayComeFromAnyTransport() throws IOException {
        // A TCP loopback port stands in for a tunnel from a remote node: the plugin only sees byte channels.
        ServerSocketChannel tunnel = ServerSocketChannel.open()
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        KubeletPlugin plugin = fixture.start(builder().pluginListener(socketPath -> acceptingFrom(tunnel)));
        ManagedChannel channel = NettyChannelBuilder.forAddress((InetSocketAddress) tunnel.getLocalAddress())
                .usePlaintext().build();
        try {
            String uid = allocatedClaim("ns", "c");

            NodePrepareResourcesResponse response = DraClient.V1.prepare(channel,
                    prepareRequest(claim("ns", "c", uid)));

            assertThat(response.getClaimsOrThrow(uid).getDevicesList()).singleElement()
                    .satisfies(device -> assertThat(device.getDeviceName()).isEqualTo("device-c"));
            assertThat(plugin.draSocket()).doesNotExist();
            assertThat(plugin.registrationSocket()).exists();
        } finally {
            channel.shutdownNow();
        }
        plugin.stop();
        assertThat(tunnel.isOpen()).isFalse();
    }

    @Test
    void aRegistrarAndADraServiceStartedApartServeOneDriver() throws IOException {
        KubeletPlugin registrar = fixture.start(builder().draService(false));

        assertThat(registrar.registrationSocket()).exists();
        assertThat(registrar.draSocket()).doesNotExist();
        assertThat(RegistrationGrpc.newBlockingStub(fixture.dial(registrar.registrationSocket()))
                .getInfo(InfoRequest.getDefaultInstance()).getEndpoint()).isEqualTo(registrar.draSocket().toString());

        KubeletPlugin service = fixture.start(builder().registrationService(false));

        assertThat(service.draSocket()).isEqualTo(registrar.draSocket()).exists();
        String uid = allocatedClaim("ns", "c");
        assertThat(DraClient.V1.prepare(fixture.dial(service.draSocket()), prepareRequest(claim("ns", "c", uid)))
                .getClaimsOrThrow(uid).getDevicesCount()).isEqualTo(1);
        service.stop();
        assertThat(service.draSocket()).doesNotExist();
        assertThat(registrar.registrationSocket()).exists();
    }

    @Test
    void theDraSocketMayShareTheRegistryDirectoryUnderItsOwnName() throws IOException {
        KubeletPlugin plugin = fixture.start(builder().pluginDataDirectory(fixture.resolve("registry"))
                .pluginSocket(DRIVER + "-common.sock"));
        KubeletPlugin rolling = fixture.start(KubeletPlugin.builder("other.example.com", new RecordingDriver())
                .registrarDirectory(fixture.resolve("registry")).pluginDataDirectory(fixture.resolve("other"))
                .pluginSocket("service.sock").rollingUpdate("pod-a"));

        assertThat(plugin.draSocket()).isEqualTo(fixture.resolve("registry/" + DRIVER + "-common.sock")).exists();
        assertThat(rolling.draSocket()).isEqualTo(fixture.resolve("other/service-pod-a.sock")).exists();
    }

    @Test
    void aListenerThatFailsWhileServingIsReportedButNotOneClosedByStop() throws Exception {
        CountDownLatch closed = new CountDownLatch(1);
        ConnectionListener failingOnClose = new ConnectionListener() {
            @Override
            public java.nio.channels.ByteChannel accept() throws IOException {
                try {
                    closed.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                throw new IOException("simulated listener failure");
            }

            @Override
            public void close() {
                closed.countDown();
            }
        };
        List<Exception> reported = new CopyOnWriteArrayList<>();
        KubeletPlugin plugin = fixture.start(builder().pluginListener(socket -> failingOnClose)
                .servingErrorHandler(reported::add));

        failingOnClose.close();

        await().atMost(Duration.ofSeconds(30)).until(() -> !reported.isEmpty());
        assertThat(reported).singleElement().satisfies(error -> assertThat(error)
                .hasMessageContaining("simulated listener failure").hasMessageStartingWith("dra " + DRIVER));

        List<Exception> afterStop = new CopyOnWriteArrayList<>();
        KubeletPlugin stopped = fixture.start(builder().pluginDataDirectory(fixture.resolve("second"))
                .registrarSocketFilename("second.sock")
                .pluginListener(socket -> acceptingFrom(unixServer(fixture.resolve("proxy.sock"))))
                .servingErrorHandler(afterStop::add));
        stopped.stop();
        plugin.stop();
        assertThat(afterStop).isEmpty();
    }

    @Test
    void rollingUpdatesGiveEachInstanceItsOwnSockets() throws IOException {
        KubeletPlugin first = fixture.start(builder().rollingUpdate("pod-a"));
        KubeletPlugin second = fixture.start(builder().rollingUpdate("pod-b"));

        assertThat(first.registrationSocket()).isEqualTo(fixture.resolve("registry/" + DRIVER + "-pod-a-reg.sock"))
                .exists();
        assertThat(second.registrationSocket()).isEqualTo(fixture.resolve("registry/" + DRIVER + "-pod-b-reg.sock"))
                .exists();
        assertThat(first.draSocket()).isEqualTo(fixture.resolve("plugin/dra-pod-a.sock")).exists();
        assertThat(second.draSocket()).isEqualTo(fixture.resolve("plugin/dra-pod-b.sock")).exists();
        for (KubeletPlugin plugin : List.of(first, second)) {
            assertThat(RegistrationGrpc.newBlockingStub(fixture.dial(plugin.registrationSocket()))
                    .getInfo(InfoRequest.getDefaultInstance()).getEndpoint())
                    .isEqualTo(plugin.draSocket().toString());
        }
    }

    @Test
    void theOldInstanceOfARollingUpdateStopsWithoutDisturbingTheNewOne() throws Exception {
        RecordingDriver newDriver = new RecordingDriver();
        KubeletPlugin old = fixture.start(builder().rollingUpdate("pod-a"));
        KubeletPlugin replacement = fixture.start(builder(newDriver).rollingUpdate("pod-b"));

        old.stop();

        assertThat(old.registrationSocket()).doesNotExist();
        assertThat(old.draSocket()).doesNotExist();
        assertThat(replacement.registrationSocket()).exists();
        assertThat(replacement.draSocket()).exists();
        List<String> uids = prepareInParallel(List.of(replacement), 8);
        assertThat(newDriver.prepared).containsExactlyInAnyOrderElementsOf(uids);
        assertThat(newDriver.maxConcurrentCalls()).isEqualTo(1);
    }

    @Test
    void withoutRollingUpdatesTheSocketNamesAreFixed() throws IOException {
        KubeletPlugin plugin = fixture.start(builder());
        KubeletPlugin renamed = fixture.start(KubeletPlugin.builder("other.example.com", new RecordingDriver())
                .registrarDirectory(fixture.resolve("registry"))
                .registrarSocketFilename("legacy.sock")
                .pluginDataDirectory(fixture.resolve("other")));

        assertThat(plugin.registrationSocket()).isEqualTo(fixture.resolve("registry/" + DRIVER + "-reg.sock"));
        assertThat(plugin.draSocket()).isEqualTo(fixture.resolve("plugin/dra.sock"));
        assertThat(renamed.registrationSocket()).isEqualTo(fixture.resolve("registry/legacy.sock")).exists();
    }

    @Test
    void serializedCallsRunOneAtATimeAcrossRollingUpdateInstancesAndLoseNothing() throws Exception {
        RecordingDriver shared = new RecordingDriver();
        List<KubeletPlugin> instances = List.of(
                fixture.start(builder(shared).rollingUpdate("pod-a")),
                fixture.start(builder(shared).rollingUpdate("pod-b")));

        List<String> uids = prepareInParallel(instances, 24);

        assertThat(shared.prepared).containsExactlyInAnyOrderElementsOf(uids);
        assertThat(shared.maxConcurrentCalls()).isEqualTo(1);
        assertThat(fixture.resolve("plugin/" + KubeletPlugin.SERIALIZE_LOCK_FILE)).exists();
    }

    @Test
    void aMissingLockDirectoryIsCreatedAtStart() throws IOException {
        Path lockDirectory = fixture.resolve("locks/nested");

        fixture.start(builder().rollingUpdate("pod-a").flockDirectory(lockDirectory));

        assertThat(lockDirectory).isDirectory();
    }

    @Test
    void aLockDirectoryThatCannotBeCreatedFailsStartAndLeavesNoThreads() throws IOException {
        Path blocker = Files.writeString(fixture.resolve("file"), "not a directory");
        Set<Thread> before = Thread.getAllStackTraces().keySet();

        assertThatThrownBy(() -> fixture.start(builder().rollingUpdate("pod-a")
                .flockDirectory(blocker.resolve("x"))))
                .isInstanceOf(IOException.class)
                .hasMessageStartingWith("create the serialization lock directory: " + blocker.resolve("x"));
        assertThat(fixture.resolve("registry/" + DRIVER + "-pod-a-reg.sock")).doesNotExist();
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                assertThat(Thread.getAllStackTraces().keySet()).noneMatch(thread -> !before.contains(thread)
                        && thread.isAlive() && thread.getName().startsWith("kdra-plugin-")));
    }

    @Test
    void aRunningCallHoldsTheRollingUpdateLockFile() throws Exception {
        RecordingDriver driver = new RecordingDriver();
        Gate gate = new Gate();
        driver.hook = gate::pass;
        Path lockDirectory = Files.createDirectories(fixture.resolve("locks"));
        KubeletPlugin plugin = fixture.start(builder(driver).rollingUpdate("pod-a")
                .flockDirectory(lockDirectory));
        ExecutorService caller = Executors.newSingleThreadExecutor();
        try {
            String uid = allocatedClaim("ns", "c");
            Future<NodePrepareResourcesResponse> call = caller.submit(() -> DraClient.V1.prepare(
                    fixture.dial(plugin.draSocket()), prepareRequest(claim("ns", "c", uid))));
            gate.awaitReached();

            try (FileChannel lockFile = FileChannel.open(lockDirectory.resolve(KubeletPlugin.SERIALIZE_LOCK_FILE),
                    StandardOpenOption.WRITE)) {
                assertThatThrownBy(lockFile::tryLock).isInstanceOf(OverlappingFileLockException.class);
            }
            gate.open();
            assertThat(call.get(30, TimeUnit.SECONDS).getClaimsOrThrow(uid).getError()).isEmpty();
        } finally {
            gate.open();
            caller.shutdownNow();
        }
    }

    @Test
    void serializedCallsOfOneInstanceRunOneAtATimeWithoutALockFile() throws Exception {
        RecordingDriver driver = new RecordingDriver();
        KubeletPlugin plugin = fixture.start(builder(driver));

        List<String> uids = prepareInParallel(List.of(plugin), 32);

        assertThat(driver.prepared).containsExactlyInAnyOrderElementsOf(uids);
        assertThat(driver.maxConcurrentCalls()).isEqualTo(1);
        assertThat(fixture.resolve("plugin/" + KubeletPlugin.SERIALIZE_LOCK_FILE)).doesNotExist();
    }

    @Test
    void unserializedCallsOfOneInstanceOverlap() throws Exception {
        RecordingDriver driver = driverWhoseFirstTwoCallsMeet(new CyclicBarrier(2));
        KubeletPlugin plugin = fixture.start(builder(driver).serialize(false));

        List<String> uids = prepareInParallel(List.of(plugin), 32);

        assertThat(driver.prepared).containsExactlyInAnyOrderElementsOf(uids);
        assertThat(driver.maxConcurrentCalls()).isGreaterThanOrEqualTo(2);
    }

    @Test
    void unserializedCallsRunInParallelAndLoseNothing() throws Exception {
        CyclicBarrier bothInside = new CyclicBarrier(2);
        RecordingDriver shared = driverWhoseFirstTwoCallsMeet(bothInside);
        List<KubeletPlugin> instances = List.of(
                fixture.start(builder(shared).rollingUpdate("pod-a").serialize(false)),
                fixture.start(builder(shared).rollingUpdate("pod-b").serialize(false)));

        List<String> uids = prepareInParallel(instances, 24);

        assertThat(shared.prepared).containsExactlyInAnyOrderElementsOf(uids);
        assertThat(shared.maxConcurrentCalls()).isGreaterThanOrEqualTo(2);
        assertThat(bothInside.isBroken()).isFalse();
    }

    /** A driver whose first two calls wait for each other: they only pass if both are inside at the same time. */
    private static RecordingDriver driverWhoseFirstTwoCallsMeet(CyclicBarrier bothInside) {
        RecordingDriver driver = new RecordingDriver();
        // Counted here, not from prepareCalls: a third call recorded before the second one looks would leave the
        // first waiting alone at the barrier.
        AtomicInteger arrivals = new AtomicInteger();
        driver.hook = () -> {
            if (arrivals.incrementAndGet() <= 2) {
                bothInside.await(30, TimeUnit.SECONDS);
            }
        };
        return driver;
    }

    /** Prepares one claim per call, spreading the calls over the instances, all at once. */
    private List<String> prepareInParallel(List<KubeletPlugin> instances, int calls) throws Exception {
        ExecutorService callers = Executors.newFixedThreadPool(calls);
        try {
            List<Future<String>> results = new ArrayList<>();
            CountDownLatch start = new CountDownLatch(1);
            for (int i = 0; i < calls; i++) {
                KubeletPlugin instance = instances.get(i % instances.size());
                String name = "claim-" + i;
                String uid = allocatedClaim("ns", name);
                var channel = fixture.dial(instance.draSocket());
                results.add(callers.submit(() -> {
                    awaitLatch(start);
                    NodePrepareResourcesResponse response = DraClient.V1.prepare(channel,
                            prepareRequest(claim("ns", name, uid)));
                    assertThat(response.getClaimsMap()).containsOnlyKeys(uid);
                    assertThat(response.getClaimsOrThrow(uid).getError()).isEmpty();
                    return uid;
                }));
            }
            start.countDown();
            List<String> uids = new ArrayList<>();
            for (Future<String> result : results) {
                uids.add(result.get(60, TimeUnit.SECONDS));
            }
            return uids;
        } finally {
            callers.shutdownNow();
        }
    }

    /** Registers an allocated claim with the plugin's claim lookup and returns its UID. */
    private String allocatedClaim(String namespace, String name) {
        ResourceClaim claim = new ResourceClaimBuilder()
                .withNewMetadata().withNamespace(namespace).withName(name).withUid("uid-" + name).endMetadata()
                .withNewStatus().withNewAllocation().withNewDevices()
                .withResults(result("gpu", DRIVER, "node-1", "device-" + name)).endDevices().endAllocation()
                .endStatus()
                .build();
        claims.put(namespace + "/" + name, claim);
        return claim.getMetadata().getUid();
    }

    private KubeletPlugin.Builder builder() {
        return builder(new RecordingDriver());
    }

    private KubeletPlugin.Builder builder(RecordingDriver driver) {
        return fixture.builder(DRIVER, driver)
                .claimLookup((namespace, name) -> claims.get(namespace + "/" + name));
    }

    private static Path address(ServerSocketChannel proxy) throws IOException {
        return ((UnixDomainSocketAddress) proxy.getLocalAddress()).getPath();
    }

    private static ServerInterceptor recording(String name, List<String> seen) {
        return new ServerInterceptor() {
            @Override
            public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
                    ServerCallHandler<Q, R> next) {
                seen.add(name + " /" + call.getMethodDescriptor().getFullMethodName());
                return next.startCall(call, headers);
            }
        };
    }

    private static void awaitLatch(CountDownLatch latch) throws InterruptedException, TimeoutException {
        if (!latch.await(30, TimeUnit.SECONDS)) {
            throw new TimeoutException("waited 30 s");
        }
    }
}
