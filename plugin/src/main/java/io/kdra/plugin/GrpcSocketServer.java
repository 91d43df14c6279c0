package io.kdra.plugin;

import io.grpc.BindableService;
import io.grpc.Server;
import io.grpc.ServerInterceptor;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.ChannelOption;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One gRPC server of the plugin (registration or DRA) on a Unix socket it creates, or on connections from an injected
 * {@link ConnectionListener}.
 */
final class GrpcSocketServer {

    private static final Logger LOG = LoggerFactory.getLogger(GrpcSocketServer.class);
    /** {@code sizeof(sockaddr_un.sun_path)} on Linux, including the terminating NUL. */
    static final int MAX_SOCKET_PATH_BYTES = 108;

    private final String name;
    private final Server server;
    private final Path ownedSocket;
    private final ConnectionBridge bridge;
    private final Path bridgeDirectory;

    private GrpcSocketServer(String name, Server server, Path ownedSocket, ConnectionBridge bridge,
            Path bridgeDirectory) {
        this.name = name;
        this.server = server;
        this.ownedSocket = ownedSocket;
        this.bridge = bridge;
        this.bridgeDirectory = bridgeDirectory;
    }

    /**
     * Starts serving.
     *
     * @param socketPath the path the kubelet uses
     * @param injected where connections come from instead of a socket at {@code socketPath}, or {@code null}
     * @param interceptors outermost first
     * @param servingErrors gets the failure of an injected listener that stops serving while the server runs
     */
    static GrpcSocketServer start(String name, Path socketPath, ListenerFactory injected,
            List<BindableService> services, List<ServerInterceptor> interceptors, EventLoopGroup eventLoops,
            Executor executor, Consumer<Exception> servingErrors) throws IOException {
        // Checked before anything is created; with an injected listener the kubelet (or a proxy on its node) still
        // dials this path, so it must be a valid socket path there too.
        checkLength(socketPath);
        if (injected == null) {
            Files.createDirectories(socketPath.getParent());
            // A socket left behind by an earlier instance would make bind fail.
            Files.deleteIfExists(socketPath);
            Server server = bind(socketPath, services, interceptors, eventLoops, executor);
            LOG.info("{}: serving on {}", name, socketPath);
            return new GrpcSocketServer(name, server, socketPath, null, null);
        }
        Path directory = Files.createTempDirectory("kdra-bridge-");
        Path privateSocket = directory.resolve("grpc.sock");
        Server server = null;
        ConnectionListener listener;
        try {
            checkLength(privateSocket);
            server = bind(privateSocket, services, interceptors, eventLoops, executor);
            listener = injected.listen(socketPath);
        } catch (IOException | RuntimeException e) {
            if (server != null) {
                server.shutdownNow();
            }
            deleteBridgeDirectory(directory);
            throw e;
        }
        ConnectionBridge bridge = new ConnectionBridge(name + "-bridge", listener, privateSocket, servingErrors);
        bridge.start();
        LOG.info("{}: serving {} through an injected listener", name, socketPath);
        return new GrpcSocketServer(name, server, null, bridge, directory);
    }

    /**
     * Stops accepting, lets running calls finish within the grace period, cancels the rest, and removes the socket.
     */
    void stop(Duration gracePeriod) throws InterruptedException {
        if (bridge != null) {
            bridge.stopAccepting();
        }
        server.shutdown();
        if (!server.awaitTermination(gracePeriod.toMillis(), TimeUnit.MILLISECONDS)) {
            LOG.warn("{}: calls still running after {}, cancelling them", name, gracePeriod);
            server.shutdownNow();
            server.awaitTermination();
        }
        if (bridge != null) {
            bridge.closeConnections();
            deleteBridgeDirectory(bridgeDirectory);
        }
        if (ownedSocket != null) {
            deleteQuietly(ownedSocket);
        }
        LOG.info("{}: stopped", name);
    }

    private static Server bind(Path socketPath, List<BindableService> services, List<ServerInterceptor> interceptors,
            EventLoopGroup eventLoops, Executor executor) throws IOException {
        NettyServerBuilder builder = NettyServerBuilder.forAddress(new DomainSocketAddress(socketPath.toString()))
                .channelType(EpollServerDomainSocketChannel.class)
                // grpc asks for TCP keep-alive, which a Unix socket lacks: netty would warn on every connection
                .withChildOption(ChannelOption.SO_KEEPALIVE, null)
                .bossEventLoopGroup(eventLoops)
                .workerEventLoopGroup(eventLoops)
                .executor(executor);
        services.forEach(builder::addService);
        // The builder runs the interceptor added last first.
        for (int i = interceptors.size() - 1; i >= 0; i--) {
            builder.intercept(interceptors.get(i));
        }
        return builder.build().start();
    }

    private static void checkLength(Path socketPath) {
        int length = socketPath.toString().getBytes(StandardCharsets.UTF_8).length;
        if (length >= MAX_SOCKET_PATH_BYTES) {
            throw new IllegalArgumentException("socket path " + socketPath + " is " + length
                    + " bytes long; Unix socket paths must be shorter than " + MAX_SOCKET_PATH_BYTES + " bytes");
        }
    }

    private static void deleteBridgeDirectory(Path directory) {
        deleteQuietly(directory.resolve("grpc.sock"));
        deleteQuietly(directory);
    }

    private static void deleteQuietly(Path path) {
        try {
            Files.deleteIfExists(path);
        } catch (IOException e) {
            LOG.warn("removing {} failed", path, e);
        }
    }
}
