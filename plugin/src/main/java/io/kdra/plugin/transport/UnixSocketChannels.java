package io.kdra.plugin.transport;

import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.channel.ChannelOption;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;

/** gRPC channels to a Unix socket as the kubelet dials its plugins: plaintext, epoll, on a given event loop. */
public final class UnixSocketChannels {

    private UnixSocketChannels() {
    }

    /** A channel builder for the socket at {@code socketPath}, on {@code eventLoops} (see {@link PollingEventLoops}). */
    public static NettyChannelBuilder to(String socketPath, EventLoopGroup eventLoops) {
        return NettyChannelBuilder.forAddress(new DomainSocketAddress(socketPath))
                .channelType(EpollDomainSocketChannel.class)
                // gRPC asks for TCP keep-alive, which a Unix socket lacks: netty would warn on every connection
                .withOption(ChannelOption.SO_KEEPALIVE, null)
                .eventLoopGroup(eventLoops)
                .usePlaintext();
    }
}
