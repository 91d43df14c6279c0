package io.kdra.apiserver.nodeproxy;

import io.vertx.core.http.WebSocketBase;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Joins two WebSockets: every message of one is written to the other, as it came (binary or text), with
 * back-pressure; a close on either side closes the other with the same code and reason, and a broken connection
 * closes the other as going away. Nothing is interpreted, so any channel protocol passes (exec today, port-forward
 * tomorrow).
 */
final class WebSocketPipe {

    private static final Logger LOG = LoggerFactory.getLogger(WebSocketPipe.class);

    /** RFC 6455 codes that report a close but may not be sent in a close frame. */
    private static final short NO_STATUS = 1005;
    private static final short ABNORMAL = 1006;
    private static final short GOING_AWAY = 1001;
    private static final short INTERNAL_ERROR = 1011;
    /** A close frame carries at most 125 bytes: the code and 123 bytes of reason. */
    private static final int MAX_REASON_BYTES = 123;

    private WebSocketPipe() {}

    static void join(WebSocketBase client, WebSocketBase node) {
        forward(client, node);
        forward(node, client);
    }

    private static void forward(WebSocketBase from, WebSocketBase to) {
        from.binaryMessageHandler(message -> {
            to.writeBinaryMessage(message);
            holdWhileFull(from, to);
        });
        from.textMessageHandler(message -> {
            to.writeTextMessage(message);
            holdWhileFull(from, to);
        });
        from.closeHandler(closed -> closeWith(to, from.closeStatusCode(), from.closeReason()));
        from.exceptionHandler(e -> {
            LOG.debug("WebSocket {} failed: {}", from.remoteAddress(), e.toString());
            closeWith(to, INTERNAL_ERROR, null);
            if (!from.isClosed()) {
                from.close(INTERNAL_ERROR);
            }
        });
    }

    private static void holdWhileFull(WebSocketBase from, WebSocketBase to) {
        if (to.writeQueueFull()) {
            from.pause();
            to.drainHandler(drained -> from.resume());
        }
    }

    private static void closeWith(WebSocketBase socket, Short code, String reason) {
        if (socket.isClosed()) {
            return;
        }
        short sent = code == null || code == NO_STATUS || code == ABNORMAL ? GOING_AWAY : code;
        if (reason == null || reason.isEmpty()) {
            socket.close(sent);
        } else {
            socket.close(sent, truncate(reason));
        }
    }

    private static String truncate(String reason) {
        byte[] bytes = reason.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        if (bytes.length <= MAX_REASON_BYTES) {
            return reason;
        }
        String cut = reason;
        while (cut.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > MAX_REASON_BYTES) {
            cut = cut.substring(0, cut.length() - 1);
        }
        return cut;
    }
}
