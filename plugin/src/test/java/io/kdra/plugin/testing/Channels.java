package io.kdra.plugin.testing;

import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** gRPC client channels to Unix sockets, as the kubelet dials them; closing this closes them all. */
public final class Channels implements AutoCloseable {

    private final List<ManagedChannel> channels = new ArrayList<>();

    public ManagedChannel to(Path socket) {
        ManagedChannel channel = Grpc.newChannelBuilder("unix://" + socket, InsecureChannelCredentials.create())
                .build();
        channels.add(channel);
        return channel;
    }

    @Override
    public void close() {
        try {
            for (ManagedChannel channel : channels) {
                channel.shutdownNow().awaitTermination(30, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
