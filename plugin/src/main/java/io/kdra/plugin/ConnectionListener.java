package io.kdra.plugin;

import java.io.Closeable;
import java.io.IOException;
import java.nio.channels.ByteChannel;

/**
 * A source of client connections for one of the plugin's gRPC servers, used instead of a local Unix socket. The e2e
 * framework implements it with connections proxied from a remote node; a {@link java.nio.channels.ServerSocketChannel}
 * has the same shape.
 *
 * <p>The plugin calls {@link #accept()} from one thread until it fails, and calls {@link #close()} when it stops.
 */
public interface ConnectionListener extends Closeable {

    /**
     * Waits for the next connection. Each returned channel carries one HTTP/2 (gRPC) connection; the plugin reads and
     * writes it from two threads at once and closes it when the connection ends.
     *
     * @return the next connection
     * @throws IOException once the listener is closed (then the plugin stops accepting), or on other failures: the
     *     plugin stops accepting and, unless it is stopping, hands the failure to its serving error handler
     */
    ByteChannel accept() throws IOException;
}
