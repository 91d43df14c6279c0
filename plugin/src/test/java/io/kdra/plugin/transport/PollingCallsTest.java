package io.kdra.plugin.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.kdra.kubelet.api.dra.v1.Claim;
import io.kdra.kubelet.api.dra.v1.DRAPluginGrpc;
import io.kdra.kubelet.api.dra.v1.NodePrepareResourcesRequest;
import io.kdra.kubelet.api.dra.v1.NodePrepareResourcesResponse;
import io.kdra.kubelet.api.pluginregistration.v1.InfoRequest;
import io.kdra.kubelet.api.pluginregistration.v1.PluginInfo;
import io.kdra.kubelet.api.pluginregistration.v1.RegistrationGrpc;
import io.kdra.plugin.ClaimRef;
import io.kdra.plugin.DraPlugin;
import io.kdra.plugin.KubeletPlugin;
import io.kdra.plugin.PrepareResult;
import io.kdra.plugin.PreparedDevice;
import io.kdra.plugin.UnprepareResult;
import io.kdra.plugin.testing.Gate;
import io.kdra.plugin.testing.PluginFixture;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The kubelet side of the transport: polling event loops, and blocking calls that poll for their answer. */
class PollingCallsTest {

    private static final String DRIVER = "poll.example.com";

    @RegisterExtension
    final PluginFixture fixture = new PluginFixture();
    private final EventLoopGroup loop = PollingEventLoops.create("test-client-io");
    private final Gate gate = new Gate();
    private final AtomicBoolean blocking = new AtomicBoolean();
    private ManagedChannel channel;

    @AfterEach
    void close() throws InterruptedException {
        if (channel != null) {
            channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
        }
        loop.shutdownGracefully(0, 0, TimeUnit.SECONDS).await();
    }

    @Test
    void callsInARowGetTheirAnswers() throws Exception {
        KubeletPlugin plugin = start(false);
        channel = UnixSocketChannels.to(plugin.registrationSocket().toString(), loop).directExecutor().build();

        for (int i = 0; i < 2_000; i++) {
            PluginInfo info = PollingCalls.blockingUnaryCall(channel, RegistrationGrpc.getGetInfoMethod(),
                    CallOptions.DEFAULT, InfoRequest.getDefaultInstance());
            assertThat(info.getName()).isEqualTo(DRIVER);
        }
    }

    @Test
    void aCallOnTheDriversEventLoopGetsItsAnswer() throws Exception {
        KubeletPlugin plugin = start(true);
        channel = UnixSocketChannels.to(plugin.draSocket().toString(), loop).build();

        for (int i = 0; i < 200; i++) {
            NodePrepareResourcesResponse response = PollingCalls.blockingUnaryCall(channel,
                    DRAPluginGrpc.getNodePrepareResourcesMethod(), CallOptions.DEFAULT, request());
            assertThat(response.getClaimsOrThrow("uid-1").getDevicesList()).singleElement()
                    .satisfies(device -> assertThat(device.getDeviceName()).isEqualTo("dev-1"));
        }
    }

    @Test
    void aFailedCallThrowsItsStatus() throws Exception {
        KubeletPlugin plugin = start(false);
        plugin.setGetInfoError("not now");
        channel = UnixSocketChannels.to(plugin.registrationSocket().toString(), loop).build();

        assertThatThrownBy(() -> PollingCalls.blockingUnaryCall(channel, RegistrationGrpc.getGetInfoMethod(),
                CallOptions.DEFAULT, InfoRequest.getDefaultInstance()))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNKNOWN);
                    assertThat(e.getStatus().getDescription()).isEqualTo("not now");
                });
    }

    @Test
    void aCallPastItsDeadlineFailsWithDeadlineExceeded() throws Exception {
        KubeletPlugin plugin = start(false);
        blocking.set(true);
        channel = UnixSocketChannels.to(plugin.draSocket().toString(), loop).build();

        assertThatThrownBy(() -> PollingCalls.blockingUnaryCall(channel,
                DRAPluginGrpc.getNodePrepareResourcesMethod(),
                CallOptions.DEFAULT.withDeadlineAfter(200, TimeUnit.MILLISECONDS), request()))
                .isInstanceOfSatisfying(StatusRuntimeException.class,
                        e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED));
        gate.open();
    }

    @Test
    void anInterruptedCallerCancelsItsCallAndKeepsTheInterrupt() throws Exception {
        KubeletPlugin plugin = start(false);
        blocking.set(true);
        channel = UnixSocketChannels.to(plugin.draSocket().toString(), loop).build();
        ExecutorService caller = Executors.newSingleThreadExecutor();
        try {
            Future<Boolean> interruptedAfterwards = caller.submit(() -> {
                try {
                    PollingCalls.blockingUnaryCall(channel, DRAPluginGrpc.getNodePrepareResourcesMethod(),
                            CallOptions.DEFAULT, request());
                    throw new AssertionError("the call returned");
                } catch (StatusRuntimeException e) {
                    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.CANCELLED);
                    assertThat(e.getStatus().getDescription()).isEqualTo("Thread interrupted");
                    return Thread.currentThread().isInterrupted();
                }
            });
            gate.awaitReached();
            caller.shutdownNow();

            assertThat(interruptedAfterwards.get(30, TimeUnit.SECONDS)).isTrue();
        } finally {
            gate.open();
            caller.shutdownNow();
        }
    }

    private KubeletPlugin start(boolean callsOnEventLoop) throws Exception {
        ResourceClaim claim = new ResourceClaimBuilder()
                .withNewMetadata().withNamespace("ns").withName("claim-1").withUid("uid-1").endMetadata()
                .withNewStatus().withNewAllocation().withNewDevices().addNewResult()
                .withRequest("req").withDriver(DRIVER).withPool("pool").withDevice("dev-1")
                .endResult().endDevices().endAllocation().endStatus()
                .build();
        return fixture.start(fixture.builder(DRIVER, new DraPlugin() {
            @Override
            public Map<String, PrepareResult> prepareResourceClaims(List<ResourceClaim> claims) throws Exception {
                if (blocking.get()) {
                    gate.pass();
                }
                return Map.of("uid-1", PrepareResult.prepared(
                        List.of(new PreparedDevice(List.of("req"), "pool", "dev-1", List.of()))));
            }

            @Override
            public Map<String, UnprepareResult> unprepareResourceClaims(List<ClaimRef> claims) {
                return Map.of();
            }
        }).claimLookup((namespace, name) -> claim).callsOnEventLoop(callsOnEventLoop));
    }

    private static NodePrepareResourcesRequest request() {
        return NodePrepareResourcesRequest.newBuilder()
                .addClaims(Claim.newBuilder().setNamespace("ns").setName("claim-1").setUid("uid-1"))
                .build();
    }
}
