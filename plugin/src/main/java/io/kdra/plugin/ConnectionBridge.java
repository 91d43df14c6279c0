package io.kdra.plugin;

import java.io.IOException;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Feeds connections from an injected {@link ConnectionListener} into a gRPC server that listens on a private Unix
 * socket: each accepted connection is paired with a new connection to that socket, and two threads copy the bytes.
 * This keeps the gRPC server itself on the same Netty transport in both cases.
 */
final class ConnectionBridge {

    private static final Logger LOG = LoggerFactory.getLogger(ConnectionBridge.class);
    private static final int BUFFER_SIZE = 16 * 1024;

    private final String name;
    private final ConnectionListener listener;
    private final UnixDomainSocketAddress target;
    private final Set<ByteChannel> open = ConcurrentHashMap.newKeySet();
    private final List<Thread> threads = new ArrayList<>();
    private final Thread acceptor;
    private final Consumer<Exception> servingErrors;
    private volatile boolean stopping;

    ConnectionBridge(String name, ConnectionListener listener, Path target, Consumer<Exception> servingErrors) {
        this.name = name;
        this.listener = listener;
        this.servingErrors = servingErrors;
        this.target = UnixDomainSocketAddress.of(target);
        this.acceptor = new Thread(this::acceptLoop, name + "-accept");
        acceptor.setDaemon(true);
    }

    void start() {
        acceptor.start();
    }

    /** Closes the listener and waits until no new connection can arrive. */
    void stopAccepting() throws InterruptedException {
        stopping = true;
        try {
            listener.close();
        } catch (IOException | RuntimeException e) {
            // The listener is the caller's code; its failure must not keep the plugin from stopping the rest.
            LOG.warn("{}: closing the injected listener failed", name, e);
        }
        acceptor.join();
    }

    /** Closes every bridged connection and waits for the copy threads. */
    void closeConnections() throws InterruptedException {
        List.copyOf(open).forEach(this::closeQuietly);
        List<Thread> copiers;
        synchronized (threads) {
            copiers = List.copyOf(threads);
        }
        for (Thread thread : copiers) {
            thread.join();
        }
    }

    private void acceptLoop() {
        while (!stopping) {
            ByteChannel client;
            try {
                client = listener.accept();
            } catch (IOException | RuntimeException e) {
                if (!stopping) {
                    report(new IOException(name + ": the injected listener failed, no more connections are accepted: "
                            + e.getMessage(), e));
                }
                return;
            }
            if (client == null) {
                report(new IOException(name
                        + ": the injected listener returned no connection, no more connections are accepted"));
                return;
            }
            try {
                bridge(client, SocketChannel.open(target));
            } catch (IOException e) {
                LOG.error("{}: connecting an injected connection to the gRPC server failed", name, e);
                closeQuietly(client);
            }
        }
    }

    private void report(Exception failure) {
        try {
            servingErrors.accept(failure);
        } catch (RuntimeException e) {
            LOG.error("{}: the serving error handler failed on: {}", name, failure.getMessage(), e);
        }
    }

    private void bridge(ByteChannel client, SocketChannel server) {
        open.add(client);
        open.add(server);
        startCopier("in", client, server);
        startCopier("out", server, client);
        LOG.debug("{}: bridged a new connection", name);
    }

    private void startCopier(String direction, ByteChannel from, ByteChannel to) {
        Thread thread = new Thread(() -> copy(from, to), name + "-" + direction);
        thread.setDaemon(true);
        synchronized (threads) {
            threads.removeIf(done -> !done.isAlive());
            threads.add(thread);
        }
        thread.start();
    }

    /** Copies until either side ends, then closes both, which also ends the copier of the other direction. */
    private void copy(ByteChannel from, ByteChannel to) {
        ByteBuffer buffer = ByteBuffer.allocate(BUFFER_SIZE);
        try {
            while (from.read(buffer) >= 0) {
                buffer.flip();
                while (buffer.hasRemaining()) {
                    to.write(buffer);
                }
                buffer.clear();
            }
        } catch (IOException e) {
            LOG.debug("{}: bridged connection ended", name, e);
        } finally {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    private void closeQuietly(ByteChannel channel) {
        open.remove(channel);
        try {
            channel.close();
        } catch (IOException e) {
            LOG.debug("{}: closing a bridged connection failed", name, e);
        }
    }
}
