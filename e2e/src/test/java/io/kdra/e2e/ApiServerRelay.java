package io.kdra.e2e;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The network between the test's clients and a plain-HTTP API server, which a test can break: each client connection
 * is relayed over its own connection to the server and is known by the target of the last request it carried (for a
 * WebSocket, its upgrade: {@code .../pods/<pod>/portforward?ports=9001}). A test drops connections, as a broken
 * network or a restarted load balancer would, or refuses requests, as an API server that denies them does (403).
 */
final class ApiServerRelay implements AutoCloseable {

    private static final Pattern REQUEST_LINE = Pattern.compile("(GET|POST|PUT|PATCH|DELETE) (/\\S*) HTTP/1\\.1\r\n");
    /** Enough of the previous read to find a request line split between two reads. */
    private static final int CARRY = 4096;
    private static final Predicate<String> NOTHING = target -> false;

    private final ServerSocket listener;
    private final InetSocketAddress server;
    private final Set<Relayed> connections = ConcurrentHashMap.newKeySet();
    private final List<String> refusedTargets = new CopyOnWriteArrayList<>();
    private volatile Predicate<String> refusing = NOTHING;

    private ApiServerRelay(ServerSocket listener, InetSocketAddress server) {
        this.listener = listener;
        this.server = server;
    }

    /** Relays to the server at this {@code http://host:port} URL. */
    static ApiServerRelay start(String serverUrl) throws IOException {
        URI uri = URI.create(serverUrl);
        if (!"http".equals(uri.getScheme())) {
            throw new IllegalArgumentException("the relay reads requests, so it needs a plain-HTTP server: " + uri);
        }
        ApiServerRelay relay = new ApiServerRelay(new ServerSocket(0, 50, InetAddress.getLoopbackAddress()),
                new InetSocketAddress(uri.getHost(), uri.getPort()));
        Thread acceptor = new Thread(relay::acceptUntilClosed, "api-server-relay");
        acceptor.setDaemon(true);
        acceptor.start();
        return relay;
    }

    String url() {
        return "http://127.0.0.1:" + listener.getLocalPort();
    }

    /**
     * Closes every connection whose last request's target (path and query) matches, on both sides.
     *
     * @return how many were closed
     */
    int drop(Predicate<String> target) {
        List<Relayed> matching = connections.stream().filter(relayed -> target.test(relayed.target)).toList();
        matching.forEach(Relayed::close);
        return matching.size();
    }

    /** Answers requests whose target matches with 403 Forbidden until {@link #stopRefusing()}. */
    void refuse(Predicate<String> target) {
        refusing = target;
    }

    void stopRefusing() {
        refusing = NOTHING;
    }

    /** The targets of the requests refused so far. */
    List<String> refused() {
        return List.copyOf(refusedTargets);
    }

    @Override
    public void close() throws IOException {
        listener.close();
        connections.forEach(Relayed::close);
    }

    private void acceptUntilClosed() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                Socket upstream = new Socket(server.getAddress(), server.getPort());
                Relayed relayed = new Relayed(client, upstream);
                connections.add(relayed);
                relayed.start();
            } catch (IOException e) {
                // closed, or the server is gone: the client sees its connection end
            }
        }
    }

    private final class Relayed {
        private final Socket client;
        private final Socket upstream;
        private volatile String target = "";

        Relayed(Socket client, Socket upstream) {
            this.client = client;
            this.upstream = upstream;
        }

        void start() {
            thread("api-server-relay requests", this::relayRequests);
            thread("api-server-relay responses", () -> copy(upstream, client));
        }

        private void thread(String name, Runnable body) {
            Thread thread = new Thread(body, name);
            thread.setDaemon(true);
            thread.start();
        }

        /** Client to server, noting each request's target and answering refused ones itself. */
        private void relayRequests() {
            byte[] buffer = new byte[16 * 1024];
            String carried = "";
            try (InputStream in = client.getInputStream(); OutputStream out = upstream.getOutputStream()) {
                int read;
                while ((read = in.read(buffer)) >= 0) {
                    String seen = carried + new String(buffer, 0, read, StandardCharsets.ISO_8859_1);
                    Matcher request = REQUEST_LINE.matcher(seen);
                    while (request.find()) {
                        if (request.end() > carried.length()) {
                            target = request.group(2);
                        }
                    }
                    if (refusing.test(target)) {
                        refusedTargets.add(target);
                        answerForbidden();
                        return;
                    }
                    out.write(buffer, 0, read);
                    out.flush();
                    carried = seen.substring(Math.max(0, seen.length() - CARRY));
                }
            } catch (IOException e) {
                // dropped, or either side closed
            } finally {
                close();
            }
        }

        private void answerForbidden() throws IOException {
            String body = "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"reason\":\"Forbidden\","
                    + "\"code\":403,\"message\":\"refused by the test's relay\"}";
            OutputStream out = client.getOutputStream();
            out.write(("HTTP/1.1 403 Forbidden\r\nContent-Type: application/json\r\nContent-Length: "
                    + body.length() + "\r\nConnection: close\r\n\r\n" + body).getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
        }

        private void copy(Socket from, Socket to) {
            byte[] buffer = new byte[16 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int read;
                while ((read = in.read(buffer)) >= 0) {
                    out.write(buffer, 0, read);
                    out.flush();
                }
            } catch (IOException e) {
                // dropped, or either side closed
            } finally {
                close();
            }
        }

        void close() {
            connections.remove(this);
            for (Socket socket : List.of(client, upstream)) {
                try {
                    socket.close();
                } catch (IOException e) {
                    // closing anyway
                }
            }
        }
    }
}
