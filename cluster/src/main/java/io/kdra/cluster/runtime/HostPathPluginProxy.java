package io.kdra.cluster.runtime;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.InterruptedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.SecureRandom;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The proxy mode of the CSI hostpath driver's image, which upstream's DRA e2e execs in its driver pods
 * ({@code /hostpathplugin --endpoint=<unix socket> --proxy-endpoint=tcp://:<port>}), run by the local runtimes in the
 * JVM instead of pulling that image: it listens on the Unix socket (a node path, through the container's mounts) and
 * on the pod's TCP port, and pairs each connection the kubelet makes to the socket with the next connection accepted
 * on the port, which the test reaches through {@code pods/portforward}. Like the image's binary, it leaves the socket
 * file behind when killed.
 *
 * <p>It is a {@link Process} so that exec treats it like any command: its output names what it listens on, and killing
 * it (the exec's client going away, the container ending) closes both listeners and every paired connection.
 */
final class HostPathPluginProxy extends Process {

    private static final Logger LOG = LoggerFactory.getLogger(HostPathPluginProxy.class);
    private static final String PROGRAM = "hostpathplugin";
    private static final int MAX_SOCKET_PATH_BYTES = 107;
    private static final int BUFFER_SIZE = 16 * 1024;
    private static final int EXIT_TERMINATED = 143;
    private static final SecureRandom SHORT_NAMES = new SecureRandom();

    private final Path socket;
    private final ServerSocketChannel unixListener;
    private final ServerSocketChannel tcpListener;
    private final Runnable unregister;
    private final Set<SocketChannel> open = ConcurrentHashMap.newKeySet();
    private final CompletableFuture<Process> exit = new CompletableFuture<>();
    private final Output stdout = new Output();
    private final Output stderr = new Output();
    private volatile int exitCode = -1;
    private volatile boolean stopping;

    private HostPathPluginProxy(Path socket, ServerSocketChannel unixListener, ServerSocketChannel tcpListener,
            Runnable unregister) {
        this.socket = socket;
        this.unixListener = unixListener;
        this.tcpListener = tcpListener;
        this.unregister = unregister;
    }

    /** Whether a command runs this program (by any directory). */
    static boolean runs(List<String> command) {
        return !command.isEmpty() && Path.of(command.get(0)).getFileName() != null
                && Path.of(command.get(0)).getFileName().toString().equals(PROGRAM);
    }

    /**
     * Starts listening as the command says.
     *
     * @param container the container the command runs in: its mounts place the socket on the node, its pod owns the
     *     port
     * @throws IOException for a command without {@code --endpoint} or a {@code tcp://:<port>} proxy endpoint, a socket
     *     path too long for a Unix socket, or a port the pod already listens on
     */
    static HostPathPluginProxy start(List<String> command, ContainerConfig container, PodPorts ports)
            throws IOException {
        String endpoint = flag(command, "endpoint");
        String proxyEndpoint = flag(command, "proxy-endpoint");
        if (endpoint == null || proxyEndpoint == null) {
            throw new IOException(PROGRAM + " runs here only in proxy mode: --endpoint=<unix socket> and "
                    + "--proxy-endpoint=tcp://:<port> are required");
        }
        int port = port(proxyEndpoint);
        Path socket = container.resolve(endpoint.replaceFirst("^unix://", ""));
        if (socket.toString().getBytes(StandardCharsets.UTF_8).length > MAX_SOCKET_PATH_BYTES) {
            throw new IOException("listen unix " + socket + ": bind: invalid argument (path too long)");
        }
        Files.createDirectories(socket.getParent());
        // as the hostpath driver, a socket file left behind by an earlier instance is replaced
        Files.deleteIfExists(socket);
        ServerSocketChannel unix = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        ServerSocketChannel tcp = null;
        Runnable unregister = null;
        try {
            bind(unix, socket);
            tcp = ServerSocketChannel.open();
            tcp.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            unregister = ports.register(container.podUid(), port, (InetSocketAddress) tcp.getLocalAddress());
            HostPathPluginProxy proxy = new HostPathPluginProxy(socket, unix, tcp, unregister);
            proxy.say("proxy: listening on " + endpoint + " and tcp :" + port);
            Thread acceptor = new Thread(proxy::pairConnections, "hostpathplugin-proxy " + socket.getFileName());
            acceptor.setDaemon(true);
            acceptor.start();
            return proxy;
        } catch (IOException | IllegalStateException e) {
            if (unregister != null) {
                unregister.run();
            }
            unix.close();
            if (tcp != null) {
                tcp.close();
            }
            throw e instanceof IOException io ? io : new IOException(e.getMessage(), e);
        }
    }

    /**
     * Binds the socket at its path. The JDK refuses the longest paths the kernel takes (107 bytes), which a driver with
     * a long name gets in rolling updates: such a socket is bound at a short path next to the system's temporary
     * files and renamed into place, which keeps it listening.
     */
    private static void bind(ServerSocketChannel unix, Path socket) throws IOException {
        try {
            unix.bind(UnixDomainSocketAddress.of(socket));
            return;
        } catch (SocketException e) {
            if (e.getMessage() == null || !e.getMessage().contains("too long")) {
                throw e;
            }
        }
        Path shortPath = Path.of(System.getProperty("java.io.tmpdir"),
                "kdra-proxy-" + Long.toHexString(SHORT_NAMES.nextLong()) + ".sock");
        unix.bind(UnixDomainSocketAddress.of(shortPath));
        try {
            Files.move(shortPath, socket, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            Files.deleteIfExists(shortPath);
            throw e;
        }
    }

    /** The value of {@code --name=value}, {@code -name=value} or {@code --name value}. */
    private static String flag(List<String> command, String name) {
        for (int i = 1; i < command.size(); i++) {
            String argument = command.get(i).replaceFirst("^--?", "");
            if (argument.startsWith(name + "=")) {
                return argument.substring(name.length() + 1);
            }
            if (argument.equals(name) && i + 1 < command.size()) {
                return command.get(i + 1);
            }
        }
        return null;
    }

    private static int port(String proxyEndpoint) throws IOException {
        String address = proxyEndpoint.replaceFirst("^tcp://", "");
        int colon = address.lastIndexOf(':');
        try {
            int port = Integer.parseInt(address.substring(colon + 1));
            if (colon >= 0 && port > 0 && port < 65536) {
                return port;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IOException("invalid --proxy-endpoint " + proxyEndpoint + ": want tcp://:<port>");
    }

    private void pairConnections() {
        while (!exit.isDone()) {
            SocketChannel test;
            SocketChannel kubelet;
            try {
                test = tcpListener.accept();
                open.add(test);
                kubelet = unixListener.accept();
                open.add(kubelet);
            } catch (IOException e) {
                if (!stopping) {
                    LOG.warn("proxy {} stopped accepting: {}", socket, e.toString());
                    say("proxy: accept failed: " + e.getMessage());
                    end(1);
                }
                return;
            }
            LOG.debug("proxy {}: a kubelet connection is paired", socket);
            copy(kubelet, test);
            copy(test, kubelet);
        }
    }

    /** Copies one direction; the end of either closes both, as gRPC never half-closes. */
    private void copy(SocketChannel from, SocketChannel to) {
        Thread thread = new Thread(() -> {
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
                LOG.trace("proxy {}: a connection ended: {}", socket, e.toString());
            } finally {
                closeQuietly(from);
                closeQuietly(to);
            }
        }, "hostpathplugin-proxy-copy");
        thread.setDaemon(true);
        thread.start();
    }

    private void closeQuietly(SocketChannel channel) {
        open.remove(channel);
        try {
            channel.close();
        } catch (IOException e) {
            LOG.trace("closing a proxied connection: {}", e.toString());
        }
    }

    private void say(String line) {
        stderr.append((line + "\n").getBytes(StandardCharsets.UTF_8));
    }

    private synchronized void end(int code) {
        if (exit.isDone()) {
            return;
        }
        stopping = true;
        exitCode = code;
        unregister.run();
        for (ServerSocketChannel listener : List.of(unixListener, tcpListener)) {
            try {
                listener.close();
            } catch (IOException e) {
                LOG.trace("closing a proxy listener: {}", e.toString());
            }
        }
        List.copyOf(open).forEach(this::closeQuietly);
        stdout.end();
        stderr.end();
        exit.complete(this);
    }

    @Override
    public OutputStream getOutputStream() {
        return OutputStream.nullOutputStream();
    }

    @Override
    public InputStream getInputStream() {
        return stdout;
    }

    @Override
    public InputStream getErrorStream() {
        return stderr;
    }

    @Override
    public int waitFor() throws InterruptedException {
        try {
            exit.get();
        } catch (ExecutionException e) {
            throw new IllegalStateException(e);
        }
        return exitCode;
    }

    @Override
    public boolean waitFor(long timeout, TimeUnit unit) throws InterruptedException {
        try {
            exit.get(timeout, unit);
            return true;
        } catch (TimeoutException e) {
            return false;
        } catch (ExecutionException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public int exitValue() {
        if (!exit.isDone()) {
            throw new IllegalThreadStateException("the proxy is still running");
        }
        return exitCode;
    }

    @Override
    public void destroy() {
        end(EXIT_TERMINATED);
    }

    @Override
    public Process destroyForcibly() {
        destroy();
        return this;
    }

    @Override
    public boolean isAlive() {
        return !exit.isDone();
    }

    @Override
    public CompletableFuture<Process> onExit() {
        return exit;
    }

    /** It starts no processes of its own. */
    @Override
    public Stream<ProcessHandle> descendants() {
        return Stream.empty();
    }

    @Override
    public Stream<ProcessHandle> children() {
        return Stream.empty();
    }

    /** What the proxy prints: readers block until there is more or the proxy has ended. */
    private static final class Output extends InputStream {
        private byte[] pending = new byte[0];
        private int position;
        private boolean ended;

        synchronized void append(byte[] bytes) {
            byte[] joined = new byte[pending.length - position + bytes.length];
            System.arraycopy(pending, position, joined, 0, pending.length - position);
            System.arraycopy(bytes, 0, joined, pending.length - position, bytes.length);
            pending = joined;
            position = 0;
            notifyAll();
        }

        synchronized void end() {
            ended = true;
            notifyAll();
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public synchronized int read(byte[] buffer, int offset, int length) throws IOException {
            if (length == 0) {
                return 0;
            }
            while (position == pending.length && !ended) {
                try {
                    wait();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new InterruptedIOException();
                }
            }
            if (position == pending.length) {
                return -1;
            }
            int count = Math.min(length, pending.length - position);
            System.arraycopy(pending, position, buffer, offset, count);
            position += count;
            return count;
        }

        @Override
        public synchronized int available() {
            return pending.length - position;
        }
    }
}
