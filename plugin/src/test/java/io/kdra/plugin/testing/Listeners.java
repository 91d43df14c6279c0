package io.kdra.plugin.testing;

import io.kdra.plugin.ConnectionListener;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ByteChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Path;

/** In-JVM sources of connections for listener injection, standing in for a proxy or tunnel from a remote node. */
public final class Listeners {

    private Listeners() {
    }

    /** A Unix server socket at the path: a proxy socket elsewhere than where the kubelet looks. */
    public static ServerSocketChannel unixServer(Path path) throws IOException {
        ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(path));
        return server;
    }

    /** Hands the plugin the connections the server socket accepts, and closes it when the plugin stops. */
    public static ConnectionListener acceptingFrom(ServerSocketChannel server) {
        return new ConnectionListener() {
            @Override
            public ByteChannel accept() throws IOException {
                return server.accept();
            }

            @Override
            public void close() throws IOException {
                server.close();
            }
        };
    }
}
