package io.kdra.cluster.kubelet;

import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.util.concurrent.DefaultThreadFactory;
import io.kdra.plugin.transport.PollingEventLoops;
import io.kdra.plugin.transport.UnixSocketChannels;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every simulated kubelet of one cluster shares, so that 500 kubelets cost no more threads than one: a small
 * scheduled pool for their work (pod syncs, retries, lease renewals, slice wiping), one gRPC event loop for their
 * plugin connections, and one inotify watch for their plugin registry directories. The kubelets never block this
 * pool for long: waits for containers and streams are callbacks, only single API and gRPC calls block a thread.
 */
public final class KubeletHost implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(KubeletHost.class);

    private final ScheduledThreadPoolExecutor executor;
    private final EventLoopGroup eventLoops;
    private final WatchService watchService;
    private final Thread watchThread;
    private final Map<WatchKey, BiConsumer<Path, List<WatchEvent<?>>>> watchers = new ConcurrentHashMap<>();

    private KubeletHost(int threads) {
        executor = new ScheduledThreadPoolExecutor(threads, new DefaultThreadFactory("kdra-kubelet", true));
        executor.setRemoveOnCancelPolicy(true);
        eventLoops = PollingEventLoops.create("kdra-kubelet-grpc");
        try {
            watchService = FileSystems.getDefault().newWatchService();
        } catch (IOException e) {
            eventLoops.shutdownGracefully(0, 0, TimeUnit.SECONDS);
            executor.shutdownNow();
            throw new UncheckedIOException("cannot watch plugin registry directories", e);
        }
        watchThread = new Thread(this::dispatchWatchEvents, "kdra-kubelet-fswatch");
        watchThread.setDaemon(true);
        watchThread.start();
    }

    /** A host with a pool sized for the machine (at least 4 threads: a blocked plugin call must not stall others). */
    public static KubeletHost create() {
        return new KubeletHost(Math.max(4, 2 * Runtime.getRuntime().availableProcessors()));
    }

    public static KubeletHost create(int threads) {
        if (threads < 1) {
            throw new IllegalArgumentException("a kubelet host needs at least one thread, got " + threads);
        }
        return new KubeletHost(threads);
    }

    ScheduledExecutorService executor() {
        return executor;
    }

    /** A gRPC channel (plaintext, as the kubelet's) to a Unix socket, on the shared event loop and pool. */
    ManagedChannel dial(String socketPath) {
        return channelTo(socketPath).executor(executor).build();
    }

    /**
     * A channel whose callbacks run on its event loop: for a thread that blocks until the channel is ready, whose
     * state callbacks must not need a pool thread, or as many registrations at once as the pool has threads would
     * stall until the dial timeout. The callbacks are cheap.
     */
    ManagedChannel dialDirect(String socketPath) {
        return channelTo(socketPath).directExecutor().build();
    }

    private NettyChannelBuilder channelTo(String socketPath) {
        return UnixSocketChannels.to(socketPath, eventLoops);
    }

    /**
     * Watches a directory for entries created and deleted; the listener runs on the watch thread with the directory
     * and its events (an {@code OVERFLOW} event means: rescan).
     */
    WatchKey watch(Path directory, BiConsumer<Path, List<WatchEvent<?>>> listener) throws IOException {
        WatchKey key = directory.register(watchService, StandardWatchEventKinds.ENTRY_CREATE,
                StandardWatchEventKinds.ENTRY_DELETE);
        watchers.put(key, listener);
        return key;
    }

    void unwatch(WatchKey key) {
        key.cancel();
        watchers.remove(key);
    }

    private void dispatchWatchEvents() {
        while (true) {
            WatchKey key;
            try {
                key = watchService.take();
            } catch (InterruptedException | ClosedWatchServiceException e) {
                return;
            }
            List<WatchEvent<?>> events = key.pollEvents();
            BiConsumer<Path, List<WatchEvent<?>>> listener = watchers.get(key);
            if (listener != null) {
                try {
                    listener.accept((Path) key.watchable(), events);
                } catch (RuntimeException e) {
                    LOG.warn("plugin registry watcher failed on {}", key.watchable(), e);
                }
            }
            if (!key.reset()) {
                watchers.remove(key);
            }
        }
    }

    @Override
    public void close() {
        try {
            watchService.close();
        } catch (IOException e) {
            LOG.debug("closing the watch service", e);
        }
        watchThread.interrupt();
        executor.shutdownNow();
        eventLoops.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }
}
