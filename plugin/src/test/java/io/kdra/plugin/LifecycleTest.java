package io.kdra.plugin;

import static io.kdra.plugin.DraClient.claim;
import static io.kdra.plugin.DraClient.unprepareRequest;
import static io.kdra.plugin.testing.Listeners.acceptingFrom;
import static io.kdra.plugin.testing.Listeners.unixServer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.kdra.kubelet.api.dra.v1.NodeUnprepareResourcesResponse;
import io.kdra.kubelet.api.drahealth.v1.DRAResourceHealthGrpc;
import io.kdra.kubelet.api.drahealth.v1.NodeWatchResourcesRequest;
import io.kdra.kubelet.api.pluginregistration.v1.InfoRequest;
import io.kdra.kubelet.api.pluginregistration.v1.RegistrationGrpc;
import io.kdra.plugin.resourceslice.DriverResources;
import io.kdra.plugin.resourceslice.Pool;
import io.kdra.plugin.testing.Gate;
import io.kdra.plugin.testing.PluginFixture;
import java.io.IOException;
import java.nio.channels.ByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Stopping: sockets removed, running calls drained, no threads left. */
class LifecycleTest {

    private static final String DRIVER = "test.example.com";

    @RegisterExtension
    final PluginFixture fixture = new PluginFixture();
    private final ExecutorService callers = Executors.newCachedThreadPool();

    @AfterEach
    void stopCallers() {
        callers.shutdownNow();
    }

    @Test
    void stopRemovesBothSocketsAndCanBeRepeated() throws Exception {
        KubeletPlugin plugin = fixture.start(fixture.builder(DRIVER, new RecordingDriver()));
        assertThat(plugin.registrationSocket()).exists();
        assertThat(plugin.draSocket()).exists();

        plugin.stop();
        plugin.stop();

        assertThat(plugin.registrationSocket()).doesNotExist();
        assertThat(plugin.draSocket()).doesNotExist();
    }

    @Test
    void aStaleSocketFromAnEarlierInstanceIsReplaced() throws Exception {
        Path stale = Files.createDirectories(fixture.resolve("plugin")).resolve("dra.sock");
        // A crashed instance leaves its socket file behind; closing a JDK server socket does not remove it either.
        unixServer(stale).close();
        assertThat(stale).exists();

        KubeletPlugin plugin = fixture.start(fixture.builder(DRIVER, new RecordingDriver()));

        assertThat(DraClient.V1.unprepare(fixture.dial(plugin.draSocket()), unprepareRequest()).getClaimsMap())
                .isEmpty();
    }

    @Test
    void stopLetsRunningCallsFinish() throws Exception {
        Gate gate = new Gate();
        KubeletPlugin plugin = startHoldingCallsAt(gate, Duration.ofSeconds(60));
        Future<NodeUnprepareResourcesResponse> call = unprepareHeldAt(gate, plugin);

        Future<?> stopping = stopUntilDraining(plugin);
        assertThat(call).isNotDone();
        gate.open();

        assertThat(call.get(30, TimeUnit.SECONDS).getClaimsMap()).containsOnlyKeys("uid-c");
        stopping.get(30, TimeUnit.SECONDS);
        assertThat(plugin.draSocket()).doesNotExist();
    }

    @Test
    void whileStopDrainsCallsThePluginAnswersAtOnce() throws Exception {
        Gate gate = new Gate();
        KubeletPlugin plugin = startHoldingCallsAt(gate, Duration.ofSeconds(60));
        Future<NodeUnprepareResourcesResponse> call = unprepareHeldAt(gate, plugin);
        Future<?> stopping = stopUntilDraining(plugin);

        // A running call may use the plugin; it must not wait for the drain that waits for it.
        Future<?> publish = callers.submit(() -> plugin.publishResources(
                DriverResources.of("pool", Pool.ofDevices(List.of()))));
        assertThat(publish).failsWithin(Duration.ofSeconds(30)).withThrowableThat()
                .havingRootCause().isInstanceOf(IllegalStateException.class)
                .withMessage("kubelet plugin for driver " + DRIVER + " is stopped");
        Future<?> secondStop = callers.submit(plugin::stop);
        assertThat(secondStop).isNotDone();
        gate.open();

        assertThat(call.get(30, TimeUnit.SECONDS).getClaimsMap()).containsOnlyKeys("uid-c");
        stopping.get(30, TimeUnit.SECONDS);
        secondStop.get(30, TimeUnit.SECONDS);
        assertThat(plugin.draSocket()).doesNotExist();
    }

    @Test
    void stopCancelsCallsThatOutlastTheGracePeriod() throws Exception {
        Gate neverOpened = new Gate();
        KubeletPlugin plugin = startHoldingCallsAt(neverOpened, Duration.ofMillis(100));
        Future<NodeUnprepareResourcesResponse> call = unprepareHeldAt(neverOpened, plugin);

        plugin.stop();

        assertThat(call).failsWithin(Duration.ofSeconds(30)).withThrowableThat()
                .havingRootCause()
                .isInstanceOf(StatusRuntimeException.class)
                .satisfies(e -> assertThat(Status.fromThrowable(e).getCode())
                        .isIn(Status.Code.CANCELLED, Status.Code.UNAVAILABLE));
        assertThat(plugin.draSocket()).doesNotExist();
    }

    @Test
    void anInjectedListenerWhoseCloseThrowsDoesNotKeepStopFromFinishing() throws Exception {
        KubeletPlugin plugin = fixture.start(fixture.builder(DRIVER, new RecordingDriver())
                .registrarListener(socketPath -> {
                    ConnectionListener proxy = acceptingFrom(unixServer(fixture.resolve("proxy.sock")));
                    return new ConnectionListener() {
                        @Override
                        public ByteChannel accept() throws IOException {
                            return proxy.accept();
                        }

                        @Override
                        public void close() throws IOException {
                            proxy.close();
                            throw new IllegalStateException("proxy pod already gone");
                        }
                    };
                }));

        plugin.stop();

        assertThat(plugin.draSocket()).doesNotExist();
    }

    @Test
    void stopLeavesNoThreadsBehind() throws Exception {
        Set<Thread> before = Thread.getAllStackTraces().keySet();
        KubeletPlugin plugin = fixture.start(fixture.builder(DRIVER, new RecordingDriver())
                .healthV1(true)
                .pluginListener(socketPath -> acceptingFrom(unixServer(fixture.resolve("proxy.sock")))));
        RegistrationGrpc.newBlockingStub(fixture.dial(plugin.registrationSocket()))
                .getInfo(InfoRequest.getDefaultInstance());
        DraClient.V1.unprepare(fixture.dial(fixture.resolve("proxy.sock")), unprepareRequest(claim("ns", "c", "u")));
        plugin.reportHealth(List.of());
        var stream = DRAResourceHealthGrpc.newBlockingStub(fixture.dial(fixture.resolve("proxy.sock")))
                .nodeWatchResources(NodeWatchResourcesRequest.getDefaultInstance());
        stream.next();

        plugin.stop();
        fixture.closeChannels();

        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(started(before)).isEmpty());
    }

    /** Threads started since the snapshot that are still alive, except those of the test's own clients and tools. */
    private static Set<String> started(Set<Thread> before) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(thread -> !before.contains(thread) && thread.isAlive())
                .map(Thread::getName)
                .filter(name -> !name.startsWith("grpc-default-") && !name.startsWith("grpc-shared-destroyer")
                        && !name.startsWith("pool-") && !name.startsWith("awaitility"))
                .collect(Collectors.toSet());
    }

    private KubeletPlugin startHoldingCallsAt(Gate gate, Duration stopGracePeriod) throws IOException {
        RecordingDriver driver = new RecordingDriver();
        driver.hook = gate::pass;
        return fixture.start(fixture.builder(DRIVER, driver).stopGracePeriod(stopGracePeriod));
    }

    /** An unprepare call, returned once it is held at the gate inside the driver. */
    private Future<NodeUnprepareResourcesResponse> unprepareHeldAt(Gate gate, KubeletPlugin plugin) throws Exception {
        Future<NodeUnprepareResourcesResponse> call = callers.submit(() -> DraClient.V1.unprepare(
                fixture.dial(plugin.draSocket()), unprepareRequest(claim("ns", "c", "uid-c"))));
        gate.awaitReached();
        return call;
    }

    /**
     * Starts stopping the plugin and returns once the registration socket is gone: stop removes it first, then the DRA
     * server waits for running calls.
     */
    private Future<?> stopUntilDraining(KubeletPlugin plugin) {
        Future<?> stopping = callers.submit(plugin::stop);
        await().atMost(Duration.ofSeconds(30)).until(() -> !plugin.registrationSocket().toFile().exists());
        return stopping;
    }
}
