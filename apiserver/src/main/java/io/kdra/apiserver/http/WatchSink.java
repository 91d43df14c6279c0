package io.kdra.apiserver.http;

import io.kdra.apiserver.json.Json;
import io.kdra.apiserver.protobuf.KubeProtobuf;
import io.kdra.apiserver.protobuf.ProtobufException;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.ServerWebSocket;
import java.util.List;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.node.ObjectNode;

/** Where a watch writes its events: a chunked HTTP response or a WebSocket, both with back-pressure. */
interface WatchSink {

    /** Writes events, in order; several at once cost one write on the connection where the protocol allows. */
    void write(List<byte[]> events);

    boolean writeQueueFull();

    void onDrain(Runnable drained);

    void onClose(Runnable closed);

    void end();

    /**
     * JSON events each followed by a newline, as kube-apiserver streams watches; events queued together share a chunk
     * (clients split the stream at the newlines, not at chunk boundaries).
     */
    static WatchSink http(HttpServerResponse response) {
        return new WatchSink() {
            @Override
            public void write(List<byte[]> events) {
                int size = 0;
                for (byte[] event : events) {
                    size += event.length + 1;
                }
                Buffer buffer = Buffer.buffer(size);
                for (byte[] event : events) {
                    buffer.appendBytes(event).appendByte((byte) '\n');
                }
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

    /**
     * Protobuf events, as kube-apiserver streams them to a client that accepts protobuf: each a {@code WatchEvent}
     * message after its length ({@link KubeProtobuf#watchEvent}). An event whose object has no protobuf form ends the
     * watch, and the client starts another.
     */
    static WatchSink protobuf(HttpServerResponse response) {
        WatchSink frames = http(response);
        return new WatchSink() {
            @Override
            public void write(List<byte[]> events) {
                Buffer buffer = Buffer.buffer();
                for (byte[] event : events) {
                    ObjectNode line = (ObjectNode) Json.parse(event);
                    try {
                        buffer.appendBytes(KubeProtobuf.watchEvent(line.get("type").asString(),
                                (ObjectNode) line.get("object")));
                    } catch (ProtobufException e) {
                        LoggerFactory.getLogger(WatchSink.class).warn("ending a protobuf watch: {}", e.getMessage());
                        response.write(buffer);
                        end();
                        return;
                    }
                }
                response.write(buffer);
            }

            @Override
            public boolean writeQueueFull() {
                return frames.writeQueueFull();
            }

            @Override
            public void onDrain(Runnable drained) {
                frames.onDrain(drained);
            }

            @Override
            public void onClose(Runnable closed) {
                frames.onClose(closed);
            }

            @Override
            public void end() {
                frames.end();
            }
        };
    }

    /** One JSON event per text message, as kube-apiserver serves watches over WebSocket. */
    static WatchSink webSocket(ServerWebSocket socket) {
        // a client may close the socket between two drains, before its close handler has ended the stream: events
        // for a closed socket are dropped (Vert.x throws on a closed WebSocket)
        return new WatchSink() {
            @Override
            public void write(List<byte[]> events) {
                if (socket.isClosed()) {
                    return;
                }
                for (byte[] event : events) {
                    socket.writeTextMessage(new String(event, java.nio.charset.StandardCharsets.UTF_8));
                }
            }

            @Override
            public boolean writeQueueFull() {
                return !socket.isClosed() && socket.writeQueueFull();
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
