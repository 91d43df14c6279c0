package io.kdra.apiserver;

import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.ServerWebSocket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A kubelet's streaming endpoints with scripted containers, for testing the API server's proxy without the cluster
 * module: {@code /containerLogs} and a WebSocket {@code /exec} speaking the channel protocol.
 *
 * <p>Logs: container {@code main} has "main 1..3" (tailLines honoured; previous: "main before restart"; follow:
 * "main 1" then whatever {@link #follow} writes until {@link #endFollow}); {@code sidecar} has "sidecar log" and no
 * previous instance; any other container is unknown (404).
 *
 * <p>Exec commands: {@code env} prints the pod and container; {@code cat} echoes stdin until the v5 close signal;
 * {@code sh -c 'exit N'} exits with N; {@code sleep} runs until the client goes; anything else is not found (127).
 *
 * <p>Port forwarding ({@code /portForward}, channel protocol): port {@value #ECHO_PORT} answers what it gets in upper
 * case; any other port reports on the error channel that nothing listens there.
 */
final class FakeKubelet implements AutoCloseable {

    static final int ECHO_PORT = 8080;

    private static final Pattern EXIT = Pattern.compile("exit (\\d+)");

    /** The path and query of every request received. */
    final List<String> requests = new CopyOnWriteArrayList<>();
    /** Exec sockets that closed, whoever closed them. */
    final AtomicInteger closedSessions = new AtomicInteger();
    /** Follow streams whose client went away. */
    final AtomicInteger abandonedFollows = new AtomicInteger();

    private final HttpServer server;
    private volatile HttpServerResponse following;

    FakeKubelet(Vertx vertx) {
        server = vertx.createHttpServer(new HttpServerOptions().setHost("127.0.0.1").setPort(0)
                .setWebSocketSubProtocols(List.of("v5.channel.k8s.io", "v4.channel.k8s.io")))
                .requestHandler(this::handle);
    }

    int start() {
        return server.listen().await().actualPort();
    }

    /** Writes to the log stream being followed. */
    void follow(String text) {
        following.write(text);
    }

    void endFollow() {
        following.end();
    }

    boolean isFollowed() {
        return following != null && !following.ended() && !following.closed();
    }

    @Override
    public void close() {
        server.close().await();
    }

    private void handle(HttpServerRequest request) {
        requests.add(request.uri());
        String[] path = request.path().split("/");
        if (path.length == 5 && path[1].equals("containerLogs")) {
            log(request, path[3], path[4]);
        } else if (path.length == 5 && path[1].equals("exec")) {
            exec(request, path[3], path[4]);
        } else if (path.length == 4 && path[1].equals("portForward")) {
            portForward(request);
        } else {
            request.response().setStatusCode(404).end("404 page not found");
        }
    }

    private void log(HttpServerRequest request, String pod, String container) {
        HttpServerResponse response = request.response().putHeader("Content-Type", "text/plain");
        MultiMap query = request.params();
        boolean previous = "true".equals(query.get("previous"));
        switch (container) {
            case "main" -> {
                if (previous) {
                    response.end("main before restart\n");
                } else if ("true".equals(query.get("follow"))) {
                    response.setChunked(true).write("main 1\n");
                    response.closeHandler(closed -> abandonedFollows.incrementAndGet());
                    following = response;
                } else {
                    List<String> lines = List.of("main 1\n", "main 2\n", "main 3\n");
                    String tail = query.get("tailLines");
                    int from = tail == null ? 0 : Math.max(0, lines.size() - Integer.parseInt(tail));
                    response.end(String.join("", lines.subList(from, lines.size())));
                }
            }
            case "sidecar" -> {
                if (previous) {
                    response.setStatusCode(400).end(String.format(
                            "previous terminated container \"sidecar\" in pod \"%s\" not found", pod));
                } else {
                    response.end("sidecar log\n");
                }
            }
            default -> response.setStatusCode(404).end(String.format("container \"%s\" not found in pod \"%s\"",
                    container, pod));
        }
    }

    private void exec(HttpServerRequest request, String pod, String container) {
        if (!List.of("main", "sidecar").contains(container)) {
            request.response().setStatusCode(404).end(String.format("container \"%s\" not found in pod \"%s\"",
                    container, pod));
            return;
        }
        List<String> command = request.params().getAll("command");
        request.toWebSocket().onSuccess(socket -> {
            socket.closeHandler(closed -> closedSessions.incrementAndGet());
            socket.writeBinaryMessage(Buffer.buffer(new byte[] {1}));
            run(socket, command, pod, container);
        });
    }

    private void portForward(HttpServerRequest request) {
        int port = Integer.parseInt(request.params().get("ports"));
        request.toWebSocket().onSuccess(socket -> {
            byte[] prefix = {(byte) (port & 0xff), (byte) (port >> 8)};
            socket.writeBinaryMessage(Buffer.buffer().appendByte((byte) 0).appendBytes(prefix));
            socket.writeBinaryMessage(Buffer.buffer().appendByte((byte) 1).appendBytes(prefix));
            if (port != ECHO_PORT) {
                write(socket, 1, "failed to connect to localhost:" + port + " inside namespace of the pod: "
                        + "connection refused");
                socket.close((short) 1000);
                return;
            }
            socket.binaryMessageHandler(message -> {
                if (message.length() > 1 && message.getUnsignedByte(0) == 0) {
                    write(socket, 0, message.getString(1, message.length()).toUpperCase(java.util.Locale.ROOT));
                }
            });
        });
    }

    private static void run(ServerWebSocket socket, List<String> command, String pod, String container) {
        String program = command.get(0);
        switch (program) {
            case "env" -> {
                write(socket, 1, "HOSTNAME=" + pod + "\nCONTAINER=" + container + "\n");
                exit(socket, 0);
            }
            case "cat" -> socket.binaryMessageHandler(message -> {
                if (message.length() > 0 && message.getUnsignedByte(0) == 0) {
                    socket.writeBinaryMessage(Buffer.buffer().appendByte((byte) 1)
                            .appendBuffer(message.getBuffer(1, message.length())));
                } else if (message.length() > 1 && message.getUnsignedByte(0) == 255) {
                    exit(socket, 0);
                }
            });
            case "sleep" -> socket.binaryMessageHandler(message -> { });
            default -> {
                Matcher exit = command.size() == 3 && program.equals("sh") ? EXIT.matcher(command.get(2)) : null;
                if (exit != null && exit.matches()) {
                    exit(socket, Integer.parseInt(exit.group(1)));
                } else {
                    write(socket, 2, program + ": not found\n");
                    exit(socket, 127);
                }
            }
        }
    }

    private static void write(ServerWebSocket socket, int channel, String text) {
        socket.writeBinaryMessage(Buffer.buffer().appendByte((byte) channel).appendString(text));
    }

    private static void exit(ServerWebSocket socket, int code) {
        String status = code == 0 ? "{\"metadata\":{},\"status\":\"Success\"}"
                : "{\"metadata\":{},\"status\":\"Failure\",\"message\":\"command terminated with non-zero exit code\","
                        + "\"reason\":\"NonZeroExitCode\",\"details\":{\"causes\":[{\"reason\":\"ExitCode\",\"message\":\""
                        + code + "\"}]}}";
        socket.writeBinaryMessage(Buffer.buffer().appendByte((byte) 3)
                .appendBytes(status.getBytes(StandardCharsets.UTF_8)));
        socket.close((short) 1000);
    }
}
