package io.kdra.cluster.kubelet.server;

import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketConnectOptions;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/** A client of the exec channel protocol: collects what arrives on each channel until the server closes. */
final class ChannelClient {

    private final WebSocket socket;
    private final Map<Integer, Buffer> received = new ConcurrentHashMap<>();
    private final CompletableFuture<Short> closed = new CompletableFuture<>();

    private ChannelClient(WebSocket socket) {
        this.socket = socket;
    }

    static ChannelClient connect(Vertx vertx, WebSocketClient client, int port, String uri, String protocol) {
        WebSocketConnectOptions options = new WebSocketConnectOptions().setHost("127.0.0.1").setPort(port).setURI(uri)
                .setSubProtocols(List.of(protocol));
        // Connected from an event loop, the handlers are set as the socket opens, before the next frame is read. From
        // the test's thread they would be set by a later task, after a server that ends at once closed the socket
        // (Vert.x 5 then refuses them: docs/kube.md, "Clients").
        Promise<ChannelClient> opened = Promise.promise();
        vertx.runOnContext(v -> client.connect(options).map(socket -> {
            ChannelClient channels = new ChannelClient(socket);
            socket.binaryMessageHandler(message -> channels.received
                    .computeIfAbsent((int) message.getUnsignedByte(0), channel -> Buffer.buffer())
                    .appendBuffer(message.getBuffer(1, message.length())));
            socket.closeHandler(closed -> channels.closed.complete(socket.closeStatusCode()));
            return channels;
        }).onComplete(opened));
        return opened.future().await();
    }

    String protocol() {
        return socket.subProtocol();
    }

    void send(int channel, String data) {
        socket.writeBinaryMessage(Buffer.buffer().appendByte((byte) channel).appendString(data)).await();
    }

    void sendRaw(Buffer message) {
        socket.writeBinaryMessage(message).await();
    }

    void sendText(String text) {
        socket.writeTextMessage(text).await();
    }

    /** Closes stdin, as a v5 client does at the end of its input. */
    void closeStdin() {
        sendRaw(Buffer.buffer(new byte[] {(byte) 255, 0}));
    }

    void disconnect() {
        socket.close().await();
    }

    /** @return the close code once the server closed */
    short awaitClose() throws Exception {
        return closed.get(30, TimeUnit.SECONDS);
    }

    String channel(int channel) {
        Buffer data = received.get(channel);
        return data == null ? "" : data.toString(StandardCharsets.UTF_8);
    }

    String stdout() {
        return channel(1);
    }

    String stderr() {
        return channel(2);
    }

    String status() {
        return channel(3);
    }
}
