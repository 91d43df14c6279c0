package io.kdra.plugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.kdra.kubelet.api.drahealth.v1.DRAResourceHealthGrpc;
import io.kdra.kubelet.api.drahealth.v1.DeviceIdentifier;
import io.kdra.kubelet.api.drahealth.v1.NodeWatchResourcesRequest;
import io.kdra.kubelet.api.drahealth.v1.NodeWatchResourcesResponse;
import io.kdra.plugin.testing.PluginFixture;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The DRAResourceHealth stream as the kubelet watches it. */
class HealthTest {

    private static final String DRIVER = "test.example.com";
    private static final Instant NOW = Instant.ofEpochSecond(1_700_000_000);

    @RegisterExtension
    final PluginFixture fixture = new PluginFixture();
    private KubeletPlugin plugin;

    /** Collects what one stream receives. */
    private static final class Watch<T> implements StreamObserver<T> {
        final BlockingQueue<T> reports = new LinkedBlockingQueue<>();
        final CompletableFuture<Void> end = new CompletableFuture<>();

        @Override
        public void onNext(T value) {
            reports.add(value);
        }

        @Override
        public void onError(Throwable t) {
            end.completeExceptionally(t);
        }

        @Override
        public void onCompleted() {
            end.complete(null);
        }

        T next() throws InterruptedException {
            T report = reports.poll(30, TimeUnit.SECONDS);
            assertThat(report).as("a report within 30 s").isNotNull();
            return report;
        }
    }

    @Test
    void reportsReachOpenStreamsAndLaterStreamsStartWithTheLatest() throws Exception {
        plugin = start(builder -> builder.healthV1(true));
        plugin.reportHealth(List.of());
        Watch<NodeWatchResourcesResponse> early = watchV1(dra());
        assertThat(early.next().getDevicesList()).as("the report from before the stream opened").isEmpty();

        plugin.reportHealth(List.of(new DeviceHealth("pool", "device-00", HealthStatus.HEALTHY, NOW)));
        plugin.reportHealth(List.of(new DeviceHealth("pool", "device-00", HealthStatus.UNHEALTHY, NOW.plusSeconds(1),
                Duration.ofSeconds(45), "ECC errors")));

        assertThat(early.next().getDevices(0).getHealth())
                .isEqualTo(io.kdra.kubelet.api.drahealth.v1.HealthStatus.HEALTHY);
        NodeWatchResourcesResponse latest = early.next();
        assertThat(latest.getDevicesList()).containsExactly(io.kdra.kubelet.api.drahealth.v1.DeviceHealth.newBuilder()
                .setDevice(DeviceIdentifier.newBuilder().setPoolName("pool").setDeviceName("device-00"))
                .setHealth(io.kdra.kubelet.api.drahealth.v1.HealthStatus.UNHEALTHY)
                .setLastUpdatedTime(NOW.getEpochSecond() + 1)
                .setHealthCheckTimeoutSeconds(45)
                .setMessage("ECC errors")
                .build());
        assertThat(watchV1(dra()).next()).isEqualTo(latest);
    }

    @Test
    void olderHealthVersionsGetTheSameReports() throws Exception {
        plugin = start(builder -> builder.healthV1alpha1(true).healthV1beta1(true));
        plugin.reportHealth(List.of());
        Watch<io.kdra.kubelet.api.drahealth.v1alpha1.NodeWatchResourcesResponse> alpha = new Watch<>();
        io.kdra.kubelet.api.drahealth.v1alpha1.DRAResourceHealthGrpc.newStub(dra()).nodeWatchResources(
                io.kdra.kubelet.api.drahealth.v1alpha1.NodeWatchResourcesRequest.getDefaultInstance(), alpha);
        Watch<io.kdra.kubelet.api.drahealth.v1beta1.NodeWatchResourcesResponse> beta = new Watch<>();
        io.kdra.kubelet.api.drahealth.v1beta1.DRAResourceHealthGrpc.newStub(dra()).nodeWatchResources(
                io.kdra.kubelet.api.drahealth.v1beta1.NodeWatchResourcesRequest.getDefaultInstance(), beta);

        assertThat(alpha.next().getDevicesList()).isEmpty();
        assertThat(beta.next().getDevicesList()).isEmpty();

        plugin.reportHealth(List.of(new DeviceHealth("pool", "device-01", HealthStatus.UNHEALTHY, NOW)));

        var alphaDevice = alpha.next().getDevices(0);
        assertThat(alphaDevice.getDevice().getDeviceName()).isEqualTo("device-01");
        assertThat(alphaDevice.getHealth())
                .isEqualTo(io.kdra.kubelet.api.drahealth.v1alpha1.HealthStatus.UNHEALTHY);
        assertThat(alphaDevice.getLastUpdatedTime()).isEqualTo(NOW.getEpochSecond());
        assertThat(beta.next().getDevices(0).getHealth())
                .isEqualTo(io.kdra.kubelet.api.drahealth.v1beta1.HealthStatus.UNHEALTHY);
    }

    @Test
    void aHealthServiceThatIsNotServedIsUnimplemented() throws Exception {
        plugin = start(builder -> builder);
        Watch<NodeWatchResourcesResponse> watch = watchV1(dra());

        assertThat(watch.end).failsWithin(Duration.ofSeconds(30)).withThrowableThat()
                .satisfies(e -> assertThat(Status.fromThrowable(e).getCode()).isEqualTo(Status.Code.UNIMPLEMENTED));
        assertThatThrownBy(() -> plugin.reportHealth(List.of()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("no DRAResourceHealth service is enabled for driver test.example.com");
    }

    @Test
    void stopEndsOpenStreams() throws Exception {
        plugin = start(builder -> builder.healthV1(true));
        plugin.reportHealth(List.of());
        Watch<NodeWatchResourcesResponse> watch = watchV1(dra());
        watch.next();

        plugin.stop();

        assertThat(watch.end).succeedsWithin(Duration.ofSeconds(30));
    }

    private KubeletPlugin start(UnaryOperator<KubeletPlugin.Builder> options) throws IOException {
        return fixture.start(options.apply(fixture.builder(DRIVER, new RecordingDriver())));
    }

    private ManagedChannel dra() {
        return fixture.dial(plugin.draSocket());
    }

    private static Watch<NodeWatchResourcesResponse> watchV1(ManagedChannel channel) {
        Watch<NodeWatchResourcesResponse> watch = new Watch<>();
        DRAResourceHealthGrpc.newStub(channel).nodeWatchResources(NodeWatchResourcesRequest.getDefaultInstance(),
                watch);
        return watch;
    }
}
