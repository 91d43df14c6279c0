package io.kdra.apiserver.http;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.ServerWebSocket;

/** Where a watch writes its events: a chunked HTTP response or a WebSocket, both with back-pressure. */
interface WatchSink {

    void write(byte[] event);

    boolean writeQueueFull();

    void onDrain(Runnable drained);

    void onClose(Runnable closed);

    void end();

    /** One JSON event per chunk, each followed by a newline, as kube-apiserver streams watches. */
    static WatchSink http(HttpServerResponse response) {
        return new WatchSink() {
            @Override
            public void write(byte[] event) {
                Buffer buffer = Buffer.buffer(event.length + 1).appendBytes(event).appendByte((byte) '\n');
                response.write(buffer);
            }

            @Override
            public boolean writeQueueFull() {
                return response.writeQueueFull();
            }

            @Override
            public void onDrain(Runnable drained) {
                response.drainHandler(v -> drained.run());
            }

            @Override
            public void onClose(Runnable closed) {
                response.closeHandler(v -> closed.run());
            }

            @Override
            public void end() {
                if (!response.ended() && !response.closed()) {
                    response.end();
                }
            }
        };
    }

    /** One JSON event per text message, as kube-apiserver serves watches over WebSocket. */
    static WatchSink webSocket(ServerWebSocket socket) {
        return new WatchSink() {
            @Override
            public void write(byte[] event) {
                socket.writeTextMessage(new String(event, java.nio.charset.StandardCharsets.UTF_8));
            }

            @Override
            public boolean writeQueueFull() {
                return socket.writeQueueFull();
            }

            @Override
            public void onDrain(Runnable drained) {
                socket.drainHandler(v -> drained.run());
            }

            @Override
            public void onClose(Runnable closed) {
                socket.closeHandler(v -> closed.run());
            }

            @Override
            public void end() {
                if (!socket.isClosed()) {
                    socket.close();
                }
            }
        };
    }
}
