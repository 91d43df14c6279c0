package io.kdra.plugin;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Creates the {@link ConnectionListener} for one of the plugin's two sockets (listener injection). When a factory is
 * set for a socket, the plugin creates and removes no file for it: the factory decides how the socket path is reached,
 * for example by a proxy on a remote node that listens there.
 */
@FunctionalInterface
public interface ListenerFactory {

    /**
     * @param socketPath the absolute path the kubelet uses for this socket (registration socket, or the DRA socket that
     *     GetInfo advertises)
     * @return a listener that delivers the connections the kubelet makes to that path
     * @throws IOException if listening fails; {@link KubeletPlugin.Builder#start()} then fails with it
     */
    ConnectionListener listen(Path socketPath) throws IOException;
}
