package io.kdra.cluster.runtime;

import java.net.InetSocketAddress;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The ports that commands run inside the runtime itself listen on for a pod: such a command cannot bind the pod's port
 * on the shared loopback (two pods would clash), so it listens on an ephemeral port and registers it under the pod's
 * port here, where the kubelet's port forwarding finds it.
 */
final class PodPorts {

    private record Key(String podUid, int port) {}

    private final Map<Key, InetSocketAddress> listening = new ConcurrentHashMap<>();

    /**
     * @return what removes the registration again
     * @throws IllegalStateException when the pod's port is taken, as binding it twice fails in a pod
     */
    Runnable register(String podUid, int port, InetSocketAddress address) {
        Key key = new Key(podUid, port);
        if (listening.putIfAbsent(key, address) != null) {
            throw new IllegalStateException("listen tcp :" + port + ": bind: address already in use");
        }
        return () -> listening.remove(key, address);
    }

    Optional<InetSocketAddress> find(String podUid, int port) {
        return Optional.ofNullable(listening.get(new Key(podUid, port)));
    }

    void removePod(String podUid) {
        listening.keySet().removeIf(key -> key.podUid().equals(podUid));
    }
}
