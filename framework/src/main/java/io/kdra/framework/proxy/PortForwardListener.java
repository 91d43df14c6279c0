package io.kdra.framework.proxy;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.PortForward;
import io.kdra.plugin.ConnectionListener;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;
import java.nio.channels.Channel;
import java.nio.channels.Pipe;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Connections to a port of a proxy pod through {@code pods/portforward}, as upstream's {@code proxy.Listen}: a few are
 * kept open ahead of time, because the proxy pairs each connection the kubelet makes to its Unix socket with the next
 * one it accepted on the port; each is handed to the plugin as an accepted connection, which stays silent until the
 * proxy has paired it. A connection that ends, or whose forwarding the API server dropped, is replaced, so that the
 * kubelet's next connection finds one; a pod that was replaced is followed to its replacement.
 */
final class PortForwardListener implements ConnectionListener {

    private static final Logger LOG = LoggerFactory.getLogger(PortForwardListener.class);
    /** Upstream keeps 10; the kubelet holds one connection per socket, so a few cover its reconnects. */
    private static final int OPEN_AHEAD = 3;
    private static final long DIAL_PERIOD_MILLIS = 100;
    private static final long MAX_RETRY_MILLIS = 5_000;

    private final KubernetesClient client;
    private final ProxyPod pod;
    private final int port;
    private final BlockingQueue<ByteChannel> dialed = new LinkedBlockingQueue<>();
    private final Set<Connection> open = ConcurrentHashMap.newKeySet();
    private final Thread dialer;
    private volatile boolean closed;

    PortForwardListener(KubernetesClient client, ProxyPod pod, int port) {
        this.client = client;
        this.pod = pod;
        this.port = port;
        this.dialer = new Thread(this::keepDialing, "port-forward " + pod.nodeName() + ":" + port);
        dialer.setDaemon(true);
        dialer.start();
    }

    @Override
    public ByteChannel accept() throws IOException {
        try {
            while (!closed) {
                ByteChannel next = dialed.poll(DIAL_PERIOD_MILLIS, TimeUnit.MILLISECONDS);
                if (next != null && next.isOpen()) {
                    return next;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        throw new IOException("listening on " + pod.lastName() + ":" + port + " was stopped");
    }

    @Override
    public void close() {
        closed = true;
        dialer.interrupt();
        try {
            dialer.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        open.forEach(Connection::close);
        dialed.clear();
    }

    private void keepDialing() {
        long retry = DIAL_PERIOD_MILLIS;
        while (!closed) {
            try {
                open.stream().filter(connection -> !connection.forward.isAlive()).toList().forEach(Connection::close);
                if (open.size() < OPEN_AHEAD) {
                    Connection connection = new Connection();
                    open.add(connection);
                    dialed.add(connection);
                }
                retry = DIAL_PERIOD_MILLIS;
                Thread.sleep(DIAL_PERIOD_MILLIS);
            } catch (InterruptedException e) {
                return;
            } catch (IOException | RuntimeException e) {
                if (retry < MAX_RETRY_MILLIS && retry * 2 >= MAX_RETRY_MILLIS) {
                    LOG.warn("port-forward to port {} of the proxy pod {} on node {} keeps failing, retrying every {} "
                            + "ms: {}. Look at `kubectl -n {} describe pod {}` and whether this user may create "
                            + "pods/portforward", port, pod.lastName(), pod.nodeName(), MAX_RETRY_MILLIS, e.toString(),
                            pod.namespace(), pod.lastName());
                } else {
                    LOG.debug("port-forward to {}:{} failed, retrying in {} ms: {}", pod.lastName(), port, retry,
                            e.toString());
                }
                try {
                    Thread.sleep(retry);
                } catch (InterruptedException interrupted) {
                    return;
                }
                retry = Math.min(retry * 2, MAX_RETRY_MILLIS);
            }
        }
    }

    /** One forwarded connection, as a channel the plugin reads and writes from two threads. */
    private final class Connection implements ByteChannel {
        private final Pipe toPod;
        private final Pipe fromPod;
        private final PortForward forward;
        private volatile boolean ended;

        Connection() throws IOException {
            String podName = pod.name();
            toPod = Pipe.open();
            fromPod = Pipe.open();
            try {
                forward = client.pods().inNamespace(pod.namespace()).withName(podName).portForward(port,
                        toPod.source(), fromPod.sink());
            } catch (RuntimeException e) {
                closePipes();
                throw e;
            }
        }

        @Override
        public int read(ByteBuffer buffer) throws IOException {
            int read = fromPod.source().read(buffer);
            if (read < 0) {
                close();
            }
            return read;
        }

        @Override
        public int write(ByteBuffer buffer) throws IOException {
            return toPod.sink().write(buffer);
        }

        @Override
        public boolean isOpen() {
            return !ended;
        }

        @Override
        public void close() {
            if (ended) {
                return;
            }
            ended = true;
            open.remove(this);
            try {
                forward.close();
            } catch (IOException e) {
                LOG.trace("closing a port-forward: {}", e.toString());
            }
            closePipes();
        }

        private void closePipes() {
            for (Channel channel : List.of(toPod.sink(), toPod.source(), fromPod.sink(), fromPod.source())) {
                try {
                    channel.close();
                } catch (IOException e) {
                    LOG.trace("closing a pipe: {}", e.toString());
                }
            }
        }
    }
}
