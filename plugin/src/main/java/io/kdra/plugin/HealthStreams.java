package io.kdra.plugin;

import com.google.protobuf.Parser;
import io.grpc.BindableService;
import io.grpc.StatusException;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.kdra.kubelet.api.drahealth.v1.DRAResourceHealthGrpc;
import io.kdra.kubelet.api.drahealth.v1.DeviceIdentifier;
import io.kdra.kubelet.api.drahealth.v1.NodeWatchResourcesRequest;
import io.kdra.kubelet.api.drahealth.v1.NodeWatchResourcesResponse;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The DRAResourceHealth streams of all API versions. The driver pushes complete reports; every open stream receives
 * each report, and a stream that opens later starts with the latest one. Stopping the plugin completes all streams so
 * that the server can drain.
 */
final class HealthStreams {

    private static final Logger LOG = LoggerFactory.getLogger(HealthStreams.class);

    /** One open NodeWatchResources stream and how to turn a v1 report into its version's message. */
    private record Watcher<T>(ServerCallStreamObserver<T> stream, Parser<T> parser) {
        void send(NodeWatchResourcesResponse report) {
            try {
                stream.onNext(DraServices.convert(report, parser));
            } catch (StatusException e) {
                stream.onError(e);
            } catch (RuntimeException e) {
                LOG.debug("health stream closed while sending", e);
            }
        }
    }

    private final List<Watcher<?>> watchers = new ArrayList<>();
    private NodeWatchResourcesResponse latest;
    private boolean completed;

    /** Sends a complete health report to every open stream and keeps it for streams that open later. */
    void report(List<DeviceHealth> devices) {
        NodeWatchResourcesResponse.Builder report = NodeWatchResourcesResponse.newBuilder();
        for (DeviceHealth device : devices) {
            report.addDevices(io.kdra.kubelet.api.drahealth.v1.DeviceHealth.newBuilder()
                    .setDevice(DeviceIdentifier.newBuilder()
                            .setPoolName(device.poolName())
                            .setDeviceName(device.deviceName()))
                    .setHealth(toProto(device.health()))
                    .setLastUpdatedTime(device.lastUpdated() == null ? 0 : device.lastUpdated().getEpochSecond())
                    .setHealthCheckTimeoutSeconds(device.healthCheckTimeout().toSeconds())
                    .setMessage(device.message()));
        }
        synchronized (watchers) {
            latest = report.build();
            watchers.forEach(watcher -> watcher.send(latest));
        }
    }

    private static io.kdra.kubelet.api.drahealth.v1.HealthStatus toProto(HealthStatus health) {
        return switch (health) {
            case HEALTHY -> io.kdra.kubelet.api.drahealth.v1.HealthStatus.HEALTHY;
            case UNHEALTHY -> io.kdra.kubelet.api.drahealth.v1.HealthStatus.UNHEALTHY;
            case UNKNOWN -> io.kdra.kubelet.api.drahealth.v1.HealthStatus.UNKNOWN;
        };
    }

    /** Ends every open stream; streams opened afterwards end at once. */
    void completeAll() {
        synchronized (watchers) {
            completed = true;
            watchers.forEach(watcher -> watcher.stream().onCompleted());
            watchers.clear();
        }
    }

    /** {@code v1.DRAResourceHealth}. */
    BindableService v1() {
        return new DRAResourceHealthGrpc.DRAResourceHealthImplBase() {
            @Override
            public void nodeWatchResources(NodeWatchResourcesRequest request,
                    StreamObserver<NodeWatchResourcesResponse> response) {
                watch(response, NodeWatchResourcesResponse.parser());
            }
        };
    }

    /** {@code v1beta1.DRAResourceHealth}. */
    BindableService v1beta1() {
        return new io.kdra.kubelet.api.drahealth.v1beta1.DRAResourceHealthGrpc.DRAResourceHealthImplBase() {
            @Override
            public void nodeWatchResources(io.kdra.kubelet.api.drahealth.v1beta1.NodeWatchResourcesRequest request,
                    StreamObserver<io.kdra.kubelet.api.drahealth.v1beta1.NodeWatchResourcesResponse> response) {
                watch(response, io.kdra.kubelet.api.drahealth.v1beta1.NodeWatchResourcesResponse.parser());
            }
        };
    }

    /** {@code v1alpha1.DRAResourceHealth}. */
    BindableService v1alpha1() {
        return new io.kdra.kubelet.api.drahealth.v1alpha1.DRAResourceHealthGrpc.DRAResourceHealthImplBase() {
            @Override
            public void nodeWatchResources(io.kdra.kubelet.api.drahealth.v1alpha1.NodeWatchResourcesRequest request,
                    StreamObserver<io.kdra.kubelet.api.drahealth.v1alpha1.NodeWatchResourcesResponse> response) {
                watch(response, io.kdra.kubelet.api.drahealth.v1alpha1.NodeWatchResourcesResponse.parser());
            }
        };
    }

    private <T> void watch(StreamObserver<T> response, Parser<T> parser) {
        Watcher<T> watcher = new Watcher<>((ServerCallStreamObserver<T>) response, parser);
        synchronized (watchers) {
            if (completed) {
                response.onCompleted();
                return;
            }
            watcher.stream().setOnCancelHandler(() -> {
                synchronized (watchers) {
                    watchers.remove(watcher);
                }
            });
            watchers.add(watcher);
            if (latest != null) {
                watcher.send(latest);
            }
        }
    }
}
