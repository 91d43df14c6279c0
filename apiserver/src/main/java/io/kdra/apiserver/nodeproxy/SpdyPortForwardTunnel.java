package io.kdra.apiserver.nodeproxy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.spdy.DefaultSpdyDataFrame;
import io.netty.handler.codec.spdy.DefaultSpdyPingFrame;
import io.netty.handler.codec.spdy.DefaultSpdyRstStreamFrame;
import io.netty.handler.codec.spdy.DefaultSpdySynReplyFrame;
import io.netty.handler.codec.spdy.DefaultSpdyWindowUpdateFrame;
import io.netty.handler.codec.spdy.SpdyDataFrame;
import io.netty.handler.codec.spdy.SpdyFrameCodec;
import io.netty.handler.codec.spdy.SpdyGoAwayFrame;
import io.netty.handler.codec.spdy.SpdyPingFrame;
import io.netty.handler.codec.spdy.SpdyRstStreamFrame;
import io.netty.handler.codec.spdy.SpdyStreamStatus;
import io.netty.handler.codec.spdy.SpdySynStreamFrame;
import io.netty.handler.codec.spdy.SpdyVersion;
import io.netty.util.ReferenceCountUtil;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.ServerWebSocket;
import io.vertx.core.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * kubectl's port-forward over a WebSocket ({@code SPDY/3.1+portforward.k8s.io}): the binary messages carry a SPDY/3.1
 * session in which kubectl opens, for every local connection, an error stream and a data stream with the same
 * {@code requestID} and the pod's {@code port}. kube-apiserver passes that session on to a kubelet speaking SPDY; here
 * each stream pair becomes one connection of the kubelet's channel protocol: the data stream is channel 0, the error
 * stream channel 1. What the kubelet reports on the error channel reaches kubectl on the error stream, which prints it.
 *
 * <p>kubectl ends its side of a data stream when the local client has closed; the channel protocol cannot carry a
 * half-close, so the kubelet connection is closed then.
 */
final class SpdyPortForwardTunnel {

    private static final Logger LOG = LoggerFactory.getLogger(SpdyPortForwardTunnel.class);
    /** The first two bytes on each kubelet channel name its port. */
    private static final int PORT_PREFIX_BYTES = 2;
    private static final int DATA_CHANNEL = 0;
    private static final int ERROR_CHANNEL = 1;

    private final ServerWebSocket client;
    private final IntFunction<Future<WebSocket>> kubelet;
    private final EmbeddedChannel codec = new EmbeddedChannel(new SpdyFrameCodec(SpdyVersion.SPDY_3_1));
    private final Map<String, Forward> byRequest = new HashMap<>();
    private final Map<Integer, Forward> byStream = new HashMap<>();
    private boolean closed;

    private SpdyPortForwardTunnel(ServerWebSocket client, IntFunction<Future<WebSocket>> kubelet) {
        this.client = client;
        this.kubelet = kubelet;
    }

    /**
     * Serves a client's upgraded WebSocket until either side closes.
     *
     * @param kubelet opens a channel-protocol WebSocket to the pod's kubelet for one port
     */
    static void serve(ServerWebSocket client, IntFunction<Future<WebSocket>> kubelet) {
        SpdyPortForwardTunnel tunnel = new SpdyPortForwardTunnel(client, kubelet);
        client.binaryMessageHandler(tunnel::fromClient);
        client.closeHandler(closed -> tunnel.close());
        client.exceptionHandler(e -> {
            LOG.debug("the port-forward client's WebSocket failed: {}", e.toString());
            tunnel.close();
        });
    }

    private synchronized void fromClient(Buffer bytes) {
        if (closed) {
            return;
        }
        try {
            codec.writeInbound(Unpooled.wrappedBuffer(bytes.getBytes()));
        } catch (RuntimeException e) {
            LOG.debug("the port-forward client sent invalid SPDY: {}", e.toString());
            close();
            return;
        }
        Object frame;
        while ((frame = codec.readInbound()) != null) {
            try {
                handle(frame);
            } finally {
                ReferenceCountUtil.release(frame);
            }
        }
        flush();
    }

    private void handle(Object frame) {
        if (frame instanceof SpdySynStreamFrame open) {
            opened(open);
        } else if (frame instanceof SpdyDataFrame data) {
            Forward forward = byStream.get(data.streamId());
            int length = data.content().readableBytes();
            if (length > 0) {
                // kubectl's SPDY library may keep to the window: give back what was read
                codec.writeOutbound(new DefaultSpdyWindowUpdateFrame(data.streamId(), length));
                codec.writeOutbound(new DefaultSpdyWindowUpdateFrame(0, length));
            }
            if (forward != null && data.streamId() == forward.dataStream) {
                forward.toKubelet(data.content());
                if (data.isLast()) {
                    forward.close();
                }
            }
        } else if (frame instanceof SpdyRstStreamFrame reset) {
            Forward forward = byStream.get(reset.streamId());
            if (forward != null) {
                forward.close();
            }
        } else if (frame instanceof SpdyPingFrame ping) {
            codec.writeOutbound(new DefaultSpdyPingFrame(ping.id()));
        } else if (frame instanceof SpdyGoAwayFrame) {
            close();
        }
    }

    private void opened(SpdySynStreamFrame open) {
        int stream = open.streamId();
        String type = open.headers().getAsString("streamtype");
        DefaultSpdySynReplyFrame reply = new DefaultSpdySynReplyFrame(stream);
        // Netty writes no header block at all for no headers, which kubectl's SPDY library cannot parse
        reply.headers().set("streamtype", type == null ? "" : type);
        codec.writeOutbound(reply);
        String requestId = open.headers().getAsString("requestid");
        String port = open.headers().getAsString("port");
        if (type == null || requestId == null) {
            codec.writeOutbound(new DefaultSpdyRstStreamFrame(stream, SpdyStreamStatus.PROTOCOL_ERROR));
            return;
        }
        Forward forward = byRequest.computeIfAbsent(requestId, id -> new Forward(id, port));
        byStream.put(stream, forward);
        switch (type) {
            case "error" -> forward.errorStream = stream;
            case "data" -> forward.dataStream = stream;
            default -> {
                codec.writeOutbound(new DefaultSpdyRstStreamFrame(stream, SpdyStreamStatus.PROTOCOL_ERROR));
                return;
            }
        }
        if (forward.errorStream != 0 && forward.dataStream != 0) {
            forward.connect();
        }
    }

    private synchronized void flush() {
        ByteBuf bytes;
        Buffer out = Buffer.buffer();
        while ((bytes = codec.readOutbound()) != null) {
            try {
                byte[] copy = new byte[bytes.readableBytes()];
                bytes.readBytes(copy);
                out.appendBytes(copy);
            } finally {
                bytes.release();
            }
        }
        if (out.length() > 0 && !client.isClosed()) {
            client.writeBinaryMessage(out);
        }
    }

    private synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        List.copyOf(byRequest.values()).forEach(Forward::close);
        codec.finishAndReleaseAll();
        if (!client.isClosed()) {
            client.close();
        }
    }

    /** One forwarded connection: a stream pair of the client and a WebSocket to the kubelet. */
    private final class Forward {
        private final String requestId;
        private final String port;
        private int errorStream;
        private int dataStream;
        private WebSocket node;
        private final List<Buffer> pending = new ArrayList<>();
        private final int[] prefixLeft = {PORT_PREFIX_BYTES, PORT_PREFIX_BYTES};
        private boolean ended;

        Forward(String requestId, String port) {
            this.requestId = requestId;
            this.port = port;
        }

        void connect() {
            int number;
            try {
                number = Integer.parseInt(port == null ? "" : port.trim());
            } catch (NumberFormatException e) {
                fail("invalid port \"" + port + "\"");
                return;
            }
            if (number < 1 || number > 65535) {
                fail(String.format("port %d must be > 0 and < 65536", number));
                return;
            }
            kubelet.apply(number).onSuccess(this::attach).onFailure(e -> {
                synchronized (SpdyPortForwardTunnel.this) {
                    fail(String.format("error forwarding port %d to the pod: %s", number, e.getMessage()));
                    flush();
                }
            });
        }

        private void attach(WebSocket socket) {
            synchronized (SpdyPortForwardTunnel.this) {
                if (ended) {
                    socket.close();
                    return;
                }
                node = socket;
                pending.forEach(this::send);
                pending.clear();
            }
            socket.binaryMessageHandler(this::fromKubelet);
            socket.closeHandler(closed -> {
                synchronized (SpdyPortForwardTunnel.this) {
                    close();
                    flush();
                }
            });
            socket.exceptionHandler(e -> LOG.debug("forwarding {}: the kubelet's WebSocket failed: {}", requestId,
                    e.toString()));
        }

        void toKubelet(ByteBuf content) {
            if (ended || content.readableBytes() == 0) {
                return;
            }
            Buffer message = Buffer.buffer(content.readableBytes() + 1).appendByte((byte) DATA_CHANNEL);
            byte[] copy = new byte[content.readableBytes()];
            content.getBytes(content.readerIndex(), copy);
            message.appendBytes(copy);
            if (node == null) {
                pending.add(message);
            } else {
                send(message);
            }
        }

        private void send(Buffer message) {
            if (!node.isClosed()) {
                node.writeBinaryMessage(message);
            }
        }

        private void fromKubelet(Buffer message) {
            synchronized (SpdyPortForwardTunnel.this) {
                if (ended || closed || message.length() == 0) {
                    return;
                }
                int channel = message.getByte(0);
                if (channel != DATA_CHANNEL && channel != ERROR_CHANNEL) {
                    return;
                }
                int skip = Math.min(prefixLeft[channel], message.length() - 1);
                prefixLeft[channel] -= skip;
                int start = 1 + skip;
                if (start < message.length()) {
                    ByteBuf payload = Unpooled.wrappedBuffer(message.getBytes(start, message.length()));
                    codec.writeOutbound(new DefaultSpdyDataFrame(channel == DATA_CHANNEL ? dataStream : errorStream,
                            payload));
                    flush();
                }
            }
        }

        /** Reports an error to kubectl on the error stream and ends the pair. */
        private void fail(String message) {
            if (ended) {
                return;
            }
            codec.writeOutbound(new DefaultSpdyDataFrame(errorStream,
                    Unpooled.wrappedBuffer(message.getBytes(StandardCharsets.UTF_8))));
            close();
        }

        /** Ends both streams and the kubelet connection. */
        void close() {
            if (ended) {
                return;
            }
            ended = true;
            byRequest.remove(requestId);
            byStream.remove(errorStream);
            byStream.remove(dataStream);
            if (!closed) {
                for (int stream : new int[] {dataStream, errorStream}) {
                    if (stream != 0) {
                        DefaultSpdyDataFrame last = new DefaultSpdyDataFrame(stream);
                        last.setLast(true);
                        codec.writeOutbound(last);
                    }
                }
            }
            if (node != null && !node.isClosed()) {
                node.close();
            }
        }
    }
}
