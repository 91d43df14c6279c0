package io.kdra.testdriver;

import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.kdra.kubelet.api.dra.v1.Claim;
import io.kdra.kubelet.api.dra.v1.DRAPluginGrpc;
import io.kdra.kubelet.api.dra.v1.NodePrepareResourcesRequest;
import io.kdra.kubelet.api.dra.v1.NodePrepareResourcesResponse;
import io.kdra.kubelet.api.dra.v1.NodeUnprepareResourcesRequest;
import io.kdra.kubelet.api.dra.v1.NodeUnprepareResourcesResponse;
import io.kdra.kubelet.api.pluginregistration.v1.InfoRequest;
import io.kdra.kubelet.api.pluginregistration.v1.PluginInfo;
import io.kdra.kubelet.api.pluginregistration.v1.RegistrationGrpc;
import io.kdra.kubelet.api.pluginregistration.v1.RegistrationStatus;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/** What the kubelet does with a DRA driver, over gRPC on the driver's Unix sockets. */
final class Kubelet implements AutoCloseable {

    private final Map<Path, ManagedChannel> channels = new ConcurrentHashMap<>();

    /** One connection per socket, reused as the kubelet does. */
    ManagedChannel dial(Path socket) {
        return channels.computeIfAbsent(socket, path -> Grpc.newChannelBuilder("unix://" + path,
                InsecureChannelCredentials.create()).build());
    }

    /** GetInfo, then NotifyRegistrationStatus with success, as the kubelet's plugin watcher does. */
    PluginInfo register(Path registrationSocket) {
        RegistrationGrpc.RegistrationBlockingStub registration =
                RegistrationGrpc.newBlockingStub(dial(registrationSocket));
        PluginInfo info = registration.getInfo(InfoRequest.getDefaultInstance());
        registration.notifyRegistrationStatus(RegistrationStatus.newBuilder().setPluginRegistered(true).build());
        return info;
    }

    static Claim claim(ResourceClaim claim) {
        return Claim.newBuilder().setNamespace(claim.getMetadata().getNamespace())
                .setName(claim.getMetadata().getName()).setUid(claim.getMetadata().getUid()).build();
    }

    private static List<Claim> claims(ResourceClaim... claims) {
        return Arrays.stream(claims).map(Kubelet::claim).toList();
    }

    NodePrepareResourcesResponse prepare(Path draSocket, ResourceClaim... claims) {
        return DRAPluginGrpc.newBlockingStub(dial(draSocket)).nodePrepareResources(
                NodePrepareResourcesRequest.newBuilder().addAllClaims(claims(claims)).build());
    }

    NodeUnprepareResourcesResponse unprepare(Path draSocket, ResourceClaim... claims) {
        return DRAPluginGrpc.newBlockingStub(dial(draSocket)).nodeUnprepareResources(
                NodeUnprepareResourcesRequest.newBuilder().addAllClaims(claims(claims)).build());
    }

    @Override
    public void close() {
        try {
            for (ManagedChannel channel : channels.values()) {
                channel.shutdownNow().awaitTermination(30, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
