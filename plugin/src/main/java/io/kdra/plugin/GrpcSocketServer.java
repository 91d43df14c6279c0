package io.kdra.plugin;

import io.grpc.BindableService;
import io.grpc.MethodDescriptor;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.Server;
import io.grpc.ServerInterceptor;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.ChannelOption;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;
import java.io.IOException;
import java.io.InputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
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
    private static final SecureRandom RANDOM = new SecureRandom();
    /**
     * Messages as the transport's streams: the services' own marshallers parse requests and write responses inside
     * the wrapped methods, so a request that does not parse reaches {@link MalformedRequestInterceptor}. Passing the
     * streams on, rather than copying them into byte arrays, keeps grpc's zero-copy paths: the received buffer is
     * parsed in place and the response is serialized straight into the outgoing frame.
     */
    private static final MethodDescriptor.Marshaller<InputStream> STREAMS = new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(InputStream value) {
            return value;
        }

        @Override
        public InputStream parse(InputStream stream) {
            return stream;
        }
    };

    private final String name;
    private final Server server;
    private final Path ownedSocket;
    /** The file key of the socket this server bound, so that stopping removes that socket and no other. */
    private final Object ownedSocketIdentity;
    private final ConnectionBridge bridge;
    private final Path bridgeDirectory;

    private GrpcSocketServer(String name, Server server, Path ownedSocket, Object ownedSocketIdentity,
            ConnectionBridge bridge, Path bridgeDirectory) {
        this.name = name;
        this.server = server;
        this.ownedSocket = ownedSocket;
        this.ownedSocketIdentity = ownedSocketIdentity;
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
            Executor executor, Duration idleTimeout, Consumer<Exception> servingErrors) throws IOException {
        // Checked before anything is created; with an injected listener the kubelet (or a proxy on its node) still
        // dials this path, so it must be a valid socket path there too.
        checkLength(socketPath);
        if (injected == null) {
            Files.createDirectories(socketPath.getParent());
            Claimed claimed = claim(name, socketPath, services, interceptors, eventLoops, executor, idleTimeout);
            LOG.info("{}: serving on {}", name, socketPath);
            return new GrpcSocketServer(name, claimed.server(), socketPath, claimed.identity(), null, null);
        }
        Path directory = Files.createTempDirectory("kdra-bridge-");
        Path privateSocket = directory.resolve("grpc.sock");
        Server server = null;
        ConnectionListener listener;
        try {
            checkLength(privateSocket);
            server = bind(privateSocket, services, interceptors, eventLoops, executor, idleTimeout);
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
        return new GrpcSocketServer(name, server, null, null, bridge, directory);
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
            deleteIfStillOurs();
        }
        LOG.info("{}: stopped", name);
    }

    private record Claimed(Server server, Object identity) {}

    /**
     * Binds the socket so that two instances cannot share it: a socket that accepts connections belongs to a running
     * instance and is left alone (start fails naming it); one that refuses them was left behind and is removed. The
     * server binds under a hidden name and hard-links the socket into place, which fails if another instance took the
     * path in between, where binding or renaming would silently replace its socket.
     */
    private static Claimed claim(String name, Path socketPath, List<BindableService> services,
            List<ServerInterceptor> interceptors, EventLoopGroup eventLoops, Executor executor, Duration idleTimeout)
            throws IOException {
        if (Files.exists(socketPath, LinkOption.NOFOLLOW_LINKS)) {
            if (accepts(socketPath)) {
                throw new IOException(name + ": " + socketPath + " is the socket of another running instance "
                        + "(it accepts connections); stop that instance or give this one other directories");
            }
            LOG.info("{}: removing the stale socket {} of an earlier instance", name, socketPath);
            Files.deleteIfExists(socketPath);
        }
        Path hidden = socketPath.resolveSibling("." + HexFormat.of().toHexDigits(RANDOM.nextInt()).substring(0, 6)
                + ".sock");
        if (hidden.toString().getBytes(StandardCharsets.UTF_8).length >= MAX_SOCKET_PATH_BYTES) {
            hidden = socketPath.resolveSibling("." + HexFormat.of().toHexDigits((byte) RANDOM.nextInt()));
        }
        Server server = bind(hidden, services, interceptors, eventLoops, executor, idleTimeout);
        try {
            Files.createLink(socketPath, hidden);
            Object identity = Files.readAttributes(socketPath, BasicFileAttributes.class,
                    LinkOption.NOFOLLOW_LINKS).fileKey();
            return new Claimed(server, identity);
        } catch (FileAlreadyExistsException e) {
            server.shutdownNow();
            throw new IOException(name + ": another instance created " + socketPath + " while this one started; "
                    + "stop that instance or give this one other directories", e);
        } catch (IOException | RuntimeException e) {
            server.shutdownNow();
            throw e;
        } finally {
            deleteQuietly(hidden);
        }
    }

    /** @return whether a server accepts connections on the socket */
    private static boolean accepts(Path socketPath) {
        try (SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            channel.connect(UnixDomainSocketAddress.of(socketPath));
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private void deleteIfStillOurs() {
        try {
            Object current = Files.readAttributes(ownedSocket, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS)
                    .fileKey();
            if (current != null && current.equals(ownedSocketIdentity)) {
                Files.deleteIfExists(ownedSocket);
            } else {
                LOG.warn("{}: leaving {} in place: it is no longer the socket this instance created", name,
                        ownedSocket);
            }
        } catch (NoSuchFileException e) {
            LOG.debug("{}: {} was already removed", name, ownedSocket);
        } catch (IOException e) {
            LOG.warn("removing {} failed", ownedSocket, e);
        }
    }

    private static Server bind(Path socketPath, List<BindableService> services, List<ServerInterceptor> interceptors,
            EventLoopGroup eventLoops, Executor executor, Duration idleTimeout) throws IOException {
        NettyServerBuilder builder = NettyServerBuilder.forAddress(new DomainSocketAddress(socketPath.toString()))
                .channelType(EpollServerDomainSocketChannel.class)
                // grpc asks for TCP keep-alive, which a Unix socket lacks: netty would warn on every connection
                .withChildOption(ChannelOption.SO_KEEPALIVE, null)
                .bossEventLoopGroup(eventLoops)
                .workerEventLoopGroup(eventLoops)
                .executor(executor)
                // closes connections without calls, also those that never send the HTTP/2 preface
                .maxConnectionIdle(idleTimeout.toMillis(), TimeUnit.MILLISECONDS);
        // ServerInterceptors.intercept runs the interceptor listed last first: reversed, the first given runs first
        List<ServerInterceptor> outermostLast = new ArrayList<>(interceptors);
        Collections.reverse(outermostLast);
        for (BindableService service : services) {
            // the given interceptors see parsed messages; a message that does not parse is refused before them
            ServerServiceDefinition intercepted = ServerInterceptors.intercept(service, outermostLast);
            builder.addService(ServerInterceptors.intercept(
                    ServerInterceptors.useMarshalledMessages(intercepted, STREAMS), new MalformedRequestInterceptor()));
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
