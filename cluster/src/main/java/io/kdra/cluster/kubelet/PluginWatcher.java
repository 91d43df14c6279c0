package io.kdra.cluster.kubelet;

import io.grpc.CallOptions;
import io.grpc.ConnectivityState;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import io.kdra.kubelet.api.pluginregistration.v1.InfoRequest;
import io.kdra.kubelet.api.pluginregistration.v1.PluginInfo;
import io.kdra.kubelet.api.pluginregistration.v1.RegistrationGrpc;
import io.kdra.kubelet.api.pluginregistration.v1.RegistrationStatus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The kubelet's plugin manager for one node: an inotify watch on {@code plugins_registry} (subdirectories too,
 * names starting with a dot ignored, sockets present at start included) feeding a desired state of sockets, and a
 * reconciler that registers each new socket through the registration API and deregisters removed ones.
 *
 * <p>Registration follows {@code operation_generator.go}: dial (10 s), {@code GetInfo}
 * ({@link io.kdra.cluster.Timing#registrationCallTimeout()}), type {@code DRAPlugin}, an empty endpoint means the
 * registration socket itself, version validation, register, then {@code NotifyRegistrationStatus} (5× the GetInfo
 * timeout). A failed attempt is retried with the reconciler's exponential back-off (500 ms doubling to 2 min 2 s);
 * a socket that is re-created is deregistered and registered again. The reconciler runs on events and retry timers,
 * not on upstream's 1 s loop, so idle kubelets cost nothing.
 */
final class PluginWatcher {

    private static final Logger LOG = LoggerFactory.getLogger(PluginWatcher.class);
    static final String DRA_PLUGIN_TYPE = "DRAPlugin";

    private final KubeletConfig config;
    private final KubeletHost host;
    private final DraPluginManager plugins;

    private final Object lock = new Object();
    private final List<WatchKey> keys = new ArrayList<>();
    /** Sockets found, with the time they were seen created (a re-created socket gets a new time). */
    private final Map<Path, Long> desired = new HashMap<>();
    private final Map<Path, Registered> actual = new HashMap<>();
    private final Set<Path> inFlight = new HashSet<>();
    private final Map<Path, Backoff> backoffs = new HashMap<>();
    private long generation;
    private boolean running;

    private record Registered(long generation, String driverName, String endpoint) {}

    private record Backoff(Duration delay, long notBefore) {}

    PluginWatcher(KubeletConfig config, KubeletHost host, DraPluginManager plugins) {
        this.config = config;
        this.host = host;
        this.plugins = plugins;
    }

    void start() throws IOException {
        Path registry = config.pluginsRegistryDirectory();
        Files.createDirectories(registry);
        synchronized (lock) {
            running = true;
            scan(registry);
        }
        reconcile();
    }

    /** Stops watching and forgets what was registered (the plugin manager drops its plugins at the same time). */
    void stop() {
        synchronized (lock) {
            running = false;
            keys.forEach(host::unwatch);
            keys.clear();
            desired.clear();
            actual.clear();
            backoffs.clear();
        }
    }

    /** Watches a directory and adds the sockets in it and below; call with the lock held. */
    private void scan(Path directory) {
        try {
            keys.add(host.watch(directory, this::onEvents));
        } catch (NoSuchFileException e) {
            return;
        } catch (IOException e) {
            LOG.warn("node {}: cannot watch {}", config.nodeName(), directory, e);
            return;
        }
        try (Stream<Path> entries = Files.list(directory)) {
            for (Path entry : entries.toList()) {
                found(entry);
            }
        } catch (IOException e) {
            LOG.debug("node {}: listing {}", config.nodeName(), directory, e);
        }
    }

    /** Call with the lock held. */
    private void found(Path path) {
        if (path.getFileName().toString().startsWith(".")) {
            return;
        }
        BasicFileAttributes attributes;
        try {
            attributes = Files.readAttributes(path, BasicFileAttributes.class);
        } catch (IOException e) {
            return;
        }
        if (attributes.isDirectory()) {
            scan(path);
        } else if (attributes.isOther()) {
            desired.put(path, ++generation);
        }
    }

    private void onEvents(Path directory, List<WatchEvent<?>> events) {
        synchronized (lock) {
            if (!running) {
                return;
            }
            for (WatchEvent<?> event : events) {
                if (event.kind() == StandardWatchEventKinds.OVERFLOW) {
                    scan(directory);
                    continue;
                }
                Path path = directory.resolve((Path) event.context());
                if (event.kind() == StandardWatchEventKinds.ENTRY_CREATE) {
                    found(path);
                } else {
                    desired.keySet().removeIf(socket -> socket.startsWith(path));
                    backoffs.keySet().removeIf(socket -> socket.startsWith(path));
                }
            }
        }
        host.executor().execute(this::reconcile);
    }

    /** Deregisters what is gone or re-created, then registers what is new and not backing off. */
    private void reconcile() {
        List<Map.Entry<Path, Long>> toRegister = new ArrayList<>();
        List<Registered> toDeregister = new ArrayList<>();
        long now = System.nanoTime();
        long nextRetry = Long.MAX_VALUE;
        synchronized (lock) {
            if (!running) {
                return;
            }
            for (var it = actual.entrySet().iterator(); it.hasNext();) {
                var entry = it.next();
                Long wanted = desired.get(entry.getKey());
                if (wanted == null || wanted != entry.getValue().generation()) {
                    toDeregister.add(entry.getValue());
                    it.remove();
                }
            }
            for (var entry : desired.entrySet()) {
                Path socket = entry.getKey();
                if (actual.containsKey(socket) || inFlight.contains(socket)) {
                    continue;
                }
                Backoff backoff = backoffs.get(socket);
                if (backoff != null && backoff.notBefore() - now > 0) {
                    nextRetry = Math.min(nextRetry, backoff.notBefore() - now);
                    continue;
                }
                inFlight.add(socket);
                toRegister.add(Map.entry(socket, entry.getValue()));
            }
        }
        for (Registered gone : toDeregister) {
            plugins.deregister(gone.driverName(), gone.endpoint());
        }
        for (var entry : toRegister) {
            host.executor().execute(() -> register(entry.getKey(), entry.getValue()));
        }
        if (nextRetry != Long.MAX_VALUE) {
            host.executor().schedule(this::reconcile, nextRetry, TimeUnit.NANOSECONDS);
        }
    }

    private void register(Path socket, long socketGeneration) {
        Registered registered = null;
        try {
            registered = attempt(socket, socketGeneration);
        } catch (RegistrationException e) {
            LOG.info("node {}: {}", config.nodeName(), e.getMessage());
        } catch (RuntimeException e) {
            LOG.warn("node {}: registering the plugin at {} failed", config.nodeName(), socket, e);
        }
        boolean stale = false;
        synchronized (lock) {
            inFlight.remove(socket);
            if (registered != null) {
                backoffs.remove(socket);
                if (running && Long.valueOf(socketGeneration).equals(desired.get(socket))) {
                    actual.put(socket, registered);
                } else {
                    stale = true;
                }
            } else if (running) {
                Backoff previous = backoffs.get(socket);
                Duration initial = config.timing().pluginRegistrationInitialBackoff();
                Duration max = config.timing().pluginRegistrationMaxBackoff();
                Duration delay = previous == null ? initial
                        : previous.delay().multipliedBy(2).compareTo(max) > 0 ? max
                        : previous.delay().multipliedBy(2);
                backoffs.put(socket, new Backoff(delay, System.nanoTime() + delay.toNanos()));
            }
        }
        if (stale) {
            // The socket went away (or the kubelet stopped) while it registered.
            plugins.deregister(registered.driverName(), registered.endpoint());
        }
        reconcile();
    }

    private Registered attempt(Path socket, long socketGeneration) throws RegistrationException {
        ManagedChannel channel = host.dialDirect(socket.toString());
        try {
            awaitReady(channel, socket);
            Duration callTimeout = config.timing().registrationCallTimeout();
            PluginInfo info;
            try {
                info = RegistrationGrpc.newBlockingStub(channel)
                        .withDeadlineAfter(callTimeout.toNanos(), TimeUnit.NANOSECONDS)
                        .getInfo(InfoRequest.getDefaultInstance());
            } catch (StatusRuntimeException e) {
                throw new RegistrationException("RegisterPlugin error -- failed to get plugin info using RPC GetInfo at"
                        + " socket " + socket + ", err: " + GrpcErrors.text(e));
            }
            if (!DRA_PLUGIN_TYPE.equals(info.getType())) {
                String error = "RegisterPlugin error -- no handler registered for plugin type: " + info.getType()
                        + " at socket " + socket;
                notify(channel, false, error);
                throw new RegistrationException(error);
            }
            // a driver names its socket as the node's path, which the kubelet finds in its own directories
            String endpoint = info.getEndpoint().isEmpty() ? socket.toString()
                    : config.hostPath(info.getEndpoint()).toString();
            try {
                plugins.validate(info.getName(), endpoint, info.getSupportedVersionsList());
            } catch (IllegalArgumentException e) {
                notify(channel, false, "RegisterPlugin error -- plugin validation failed with err: " + e.getMessage());
                throw new RegistrationException("RegisterPlugin error -- pluginHandler.ValidatePluginFunc failed: "
                        + e.getMessage());
            }
            try {
                plugins.register(info.getName(), endpoint, info.getSupportedVersionsList());
            } catch (IllegalArgumentException e) {
                String error = "RegisterPlugin error -- plugin registration failed with err: " + e.getMessage();
                notify(channel, false, error);
                throw new RegistrationException(error);
            }
            try {
                notify(channel, true, "");
            } catch (RegistrationException e) {
                // Registration starts from scratch, so the instance must not stay registered meanwhile.
                plugins.deregister(info.getName(), endpoint);
                throw e;
            }
            return new Registered(socketGeneration, info.getName(), endpoint);
        } finally {
            channel.shutdownNow();
        }
    }

    private void notify(ManagedChannel channel, boolean registered, String error) throws RegistrationException {
        Duration timeout = config.timing().registrationCallTimeout().multipliedBy(5);
        try {
            ClientCalls.blockingUnaryCall(channel, RegistrationGrpc.getNotifyRegistrationStatusMethod(),
                    CallOptions.DEFAULT.withDeadlineAfter(timeout.toNanos(), TimeUnit.NANOSECONDS),
                    RegistrationStatus.newBuilder().setPluginRegistered(registered).setError(error).build());
        } catch (StatusRuntimeException e) {
            throw new RegistrationException("RegisterPlugin error -- failed to send registration status"
                    + (error.isEmpty() ? "" : " (" + error + ")") + ", err: " + GrpcErrors.text(e));
        }
    }

    /** The dial with {@code WithBlock}: wait until connected, at most the dial timeout. */
    private void awaitReady(ManagedChannel channel, Path socket) throws RegistrationException {
        CompletableFuture<Void> ready = new CompletableFuture<>();
        watchUntilReady(channel, channel.getState(true), ready);
        try {
            ready.get(config.timing().pluginDialTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException | ExecutionException e) {
            throw new RegistrationException("RegisterPlugin error -- dial failed at socket " + socket
                    + ", err: failed to dial socket " + socket + ", err: context deadline exceeded");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RegistrationException("RegisterPlugin error -- dial interrupted at socket " + socket);
        }
    }

    private static void watchUntilReady(ManagedChannel channel, ConnectivityState state,
            CompletableFuture<Void> ready) {
        if (state == ConnectivityState.READY) {
            ready.complete(null);
            return;
        }
        if (state == ConnectivityState.SHUTDOWN) {
            ready.completeExceptionally(new IllegalStateException("channel shut down"));
            return;
        }
        channel.notifyWhenStateChanged(state, () -> watchUntilReady(channel, channel.getState(true), ready));
    }

    /** A failed registration attempt, with the kubelet's message. */
    private static final class RegistrationException extends Exception {
        RegistrationException(String message) {
            super(message);
        }
    }
}
