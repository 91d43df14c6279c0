package io.kdra.apiserver.nodeproxy;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.WebSocketBase;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Joins a node's WebSocket to a client's: every message of one is written to the other as it came (binary or
 * text), with back-pressure; a close on either side closes the other with the same code and reason, and a broken
 * connection closes the other as going away. Nothing is interpreted, so any channel protocol passes (exec today,
 * port-forward tomorrow).
 *
 * <p>The node's socket is held from the moment it opens, while the client's upgrade is under way: what the node
 * sends meanwhile, its close included, is kept and delivered once the client is there. The two sockets may live on
 * different event loops, hence the lock.
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
    /** What the node may send before the client is there; beyond it the node is paused. */
    private static final int MAX_HELD_BYTES = 1024 * 1024;

    private final WebSocketBase node;
    private final List<Object> held = new ArrayList<>();
    private int heldBytes;
    private boolean nodeClosed;
    private Short nodeCloseCode;
    private String nodeCloseReason;
    private WebSocketBase client;

    private WebSocketPipe(WebSocketBase node) {
        this.node = node;
    }

    /** Starts holding what the node sends; call it as soon as the node's socket is open. */
    static WebSocketPipe hold(WebSocketBase node) {
        WebSocketPipe pipe = new WebSocketPipe(node);
        node.binaryMessageHandler(pipe::fromNode);
        node.textMessageHandler(pipe::fromNode);
        node.closeHandler(closed -> pipe.nodeClosed(node.closeStatusCode(), node.closeReason()));
        node.exceptionHandler(e -> {
            LOG.debug("the kubelet's WebSocket failed: {}", e.toString());
            pipe.nodeClosed(INTERNAL_ERROR, null);
        });
        return pipe;
    }

    /** Joins the client: delivers what was held, then forwards both ways. */
    synchronized void join(WebSocketBase client) {
        this.client = client;
        held.forEach(message -> write(client, message));
        held.clear();
        client.binaryMessageHandler(message -> forward(message, node, client));
        client.textMessageHandler(message -> forward(message, node, client));
        client.closeHandler(closed -> closeWith(node, client.closeStatusCode(), client.closeReason()));
        client.exceptionHandler(e -> {
            LOG.debug("the client's WebSocket failed: {}", e.toString());
            closeWith(node, INTERNAL_ERROR, null);
        });
        if (nodeClosed) {
            closeWith(client, nodeCloseCode, nodeCloseReason);
        } else {
            node.resume();
        }
    }

    /** The client never came: the node's socket is closed. */
    synchronized void abandon() {
        held.clear();
        closeWith(node, GOING_AWAY, null);
    }

    private synchronized void fromNode(Object message) {
        if (client != null) {
            forward(message, client, node);
            return;
        }
        held.add(message);
        heldBytes += message instanceof Buffer buffer ? buffer.length() : ((String) message).length();
        if (heldBytes > MAX_HELD_BYTES) {
            node.pause();
        }
    }

    private synchronized void nodeClosed(Short code, String reason) {
        if (client != null) {
            closeWith(client, code, reason);
            return;
        }
        nodeClosed = true;
        nodeCloseCode = code;
        nodeCloseReason = reason;
    }

    private static void forward(Object message, WebSocketBase to, WebSocketBase from) {
        write(to, message);
        try {
            if (to.writeQueueFull()) {
                from.pause();
                to.drainHandler(drained -> from.resume());
            }
        } catch (IllegalStateException closedMeanwhile) {
            // the other side's close handler closes this side too
        }
    }

    private static void write(WebSocketBase to, Object message) {
        if (to.isClosed()) {
            return;
        }
        if (message instanceof Buffer binary) {
            to.writeBinaryMessage(binary);
        } else {
            to.writeTextMessage((String) message);
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
        String cut = reason;
        while (cut.getBytes(StandardCharsets.UTF_8).length > MAX_REASON_BYTES) {
            cut = cut.substring(0, cut.length() - 1);
        }
        return cut;
    }
}
