package io.kdra.cluster.kubelet.server;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.ServerWebSocket;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetSocket;
import io.vertx.core.net.SocketAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One port-forward WebSocket with the kubelet's channel protocol: for the i-th requested port, channel 2i carries the
 * connection's bytes and channel 2i+1 its errors, and each channel starts with the port in two little-endian bytes.
 * Every port is one connection to the pod; when a connection cannot be made or ends, and when the client goes, the
 * socket and every connection close.
 */
final class PortForwardSession {

    private static final Logger LOG = LoggerFactory.getLogger(PortForwardSession.class);
    private static final short NORMAL_CLOSURE = 1000;

    private final ServerWebSocket socket;
    private final List<Integer> ports;
    private final List<InetSocketAddress> targets;
    private final NetClient network;
    private final List<NetSocket> connections = new ArrayList<>();
    private final List<List<Buffer>> pending = new ArrayList<>();
    private boolean ended;

    /**
     * @param targets where each port of the pod is reached, in the order of {@code ports}
     */
    PortForwardSession(ServerWebSocket socket, List<Integer> ports, List<InetSocketAddress> targets,
            NetClient network) {
        this.socket = socket;
        this.ports = List.copyOf(ports);
        this.targets = List.copyOf(targets);
        this.network = network;
    }

    /** @param onClose run once the socket has closed, whoever closed it */
    void start(Runnable onClose) {
        socket.binaryMessageHandler(this::received);
        socket.closeHandler(closed -> {
            end();
            onClose.run();
        });
        socket.exceptionHandler(e -> LOG.debug("port forward of {} failed: {}", socket.remoteAddress(), e.toString()));
        for (int i = 0; i < ports.size(); i++) {
            int port = ports.get(i);
            byte[] prefix = {(byte) (port & 0xff), (byte) ((port >> 8) & 0xff)};
            socket.writeBinaryMessage(Buffer.buffer().appendByte((byte) (2 * i)).appendBytes(prefix));
            socket.writeBinaryMessage(Buffer.buffer().appendByte((byte) (2 * i + 1)).appendBytes(prefix));
            connections.add(null);
            pending.add(new ArrayList<>());
        }
        for (int i = 0; i < ports.size(); i++) {
            connect(i);
        }
    }

    private void connect(int index) {
        InetSocketAddress target = targets.get(index);
        network.connect(SocketAddress.inetSocketAddress(target.getPort(), target.getHostString()))
                .onSuccess(connection -> attach(index, connection))
                .onFailure(e -> {
                    String error = String.format("failed to connect to localhost:%d inside namespace of the pod: %s",
                            ports.get(index), e.getMessage());
                    synchronized (this) {
                        if (!ended && !socket.isClosed()) {
                            socket.writeBinaryMessage(Buffer.buffer().appendByte((byte) (2 * index + 1))
                                    .appendString(error));
                        }
                    }
                    end();
                });
    }

    private void attach(int index, NetSocket connection) {
        synchronized (this) {
            if (ended) {
                connection.close();
                return;
            }
            connections.set(index, connection);
            pending.get(index).forEach(connection::write);
            pending.get(index).clear();
        }
        byte channel = (byte) (2 * index);
        connection.handler(data -> {
            if (!socket.isClosed()) {
                socket.writeBinaryMessage(Buffer.buffer(data.length() + 1).appendByte(channel).appendBuffer(data));
                if (socket.writeQueueFull()) {
                    connection.pause();
                    socket.drainHandler(drained -> connection.resume());
                }
            }
        });
        connection.closeHandler(closed -> end());
        connection.exceptionHandler(e -> LOG.debug("a forwarded connection failed: {}", e.toString()));
    }

    private synchronized void received(Buffer message) {
        if (ended || message.length() < 2) {
            return;
        }
        int channel = message.getUnsignedByte(0);
        if (channel % 2 != 0 || channel / 2 >= ports.size()) {
            return;
        }
        int index = channel / 2;
        Buffer data = message.getBuffer(1, message.length());
        NetSocket connection = connections.get(index);
        if (connection == null) {
            pending.get(index).add(data);
        } else {
            connection.write(data);
        }
    }

    /** Closes every connection and the socket; calling it again does nothing. */
    void end() {
        List<NetSocket> open;
        synchronized (this) {
            if (ended) {
                return;
            }
            ended = true;
            open = new ArrayList<>(connections);
        }
        open.stream().filter(connection -> connection != null).forEach(NetSocket::close);
        if (!socket.isClosed()) {
            socket.close(NORMAL_CLOSURE);
        }
    }
}
