package io.kdra.cluster.kubelet;

import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ConnectivityState;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import io.kdra.kubelet.api.drahealth.v1.DeviceHealth;
import io.kdra.kubelet.api.drahealth.v1.NodeWatchResourcesRequest;
import io.kdra.kubelet.api.drahealth.v1.NodeWatchResourcesResponse;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The registered DRA plugins of one node, as the kubelet's {@code DRAPluginManager} keeps them: several instances per
 * driver (rolling updates) with distinct endpoints, one gRPC channel each, the connection state of each, the choice
 * of instance for a call, the wiping of a driver's ResourceSlices when it stays unusable for the wiping delay, and
 * the device-health streams.
 */
final class DraPluginManager {

    private static final Logger LOG = LoggerFactory.getLogger(DraPluginManager.class);

    /** Receives what the plugins' health streams report. */
    interface HealthListener {
        void onHealth(String driverName, List<DeviceHealth> devices);

        /** A driver's stream ended: its devices' health is no longer known. */
        void onStreamEnded(String driverName);
    }

    /** Thrown when no instance of a driver is registered. */
    static final class NotRegisteredException extends Exception {
        NotRegisteredException(String driverName) {
            super("DRA driver " + driverName + " is not registered");
        }
    }

    private final KubeletConfig config;
    private final KubeletHost host;
    private final SliceWiper wiper;
    private final HealthListener healthListener;

    private final Object lock = new Object();
    /** Driver name to its instances in the order they registered. */
    private final Map<String, List<DraPlugin>> store = new HashMap<>();
    private final Map<String, ScheduledFuture<?>> pendingWipes = new HashMap<>();
    private final Map<DraPlugin, ClientCall<NodeWatchResourcesRequest, NodeWatchResourcesResponse>> healthCalls =
            new HashMap<>();
    private volatile boolean running;

    DraPluginManager(KubeletConfig config, KubeletHost host, SliceWiper wiper, HealthListener healthListener) {
        this.config = config;
        this.host = host;
        this.wiper = wiper;
        this.healthListener = healthListener;
    }

    /** Starts serving registrations and wipes every slice of the node: no driver is usable until it registers. */
    void start() {
        running = true;
        wiper.wipe(null, () -> running);
    }

    /** Forgets every plugin and closes their connections; pending wipes are dropped, as a stopped kubelet's are. */
    void stop() {
        List<DraPlugin> closing = new ArrayList<>();
        synchronized (lock) {
            running = false;
            pendingWipes.values().forEach(wipe -> wipe.cancel(false));
            pendingWipes.clear();
            healthCalls.values().forEach(call -> call.cancel("kubelet stopped", null));
            healthCalls.clear();
            store.values().forEach(closing::addAll);
            store.clear();
        }
        closing.forEach(plugin -> plugin.channel.shutdownNow());
    }

    /**
     * Registers an instance after the plugin watcher validated it.
     *
     * @throws IllegalArgumentException with the kubelet's error text when the versions are unusable or the endpoint
     *     is taken
     */
    void register(String driverName, String endpoint, List<String> supportedVersions) {
        DraService service = validate(driverName, endpoint, supportedVersions);
        synchronized (lock) {
            for (DraPlugin existing : store.getOrDefault(driverName, List.of())) {
                if (existing.endpoint.equals(endpoint)) {
                    throw new IllegalArgumentException(
                            "endpoint " + endpoint + " already registered for DRA driver plugin " + driverName);
                }
            }
            ManagedChannel channel = host.dial(endpoint);
            DraPlugin plugin = new DraPlugin(driverName, endpoint, service, channel,
                    config.timing().pluginCallTimeout());
            store.computeIfAbsent(driverName, name -> new ArrayList<>()).add(plugin);
            LOG.info("node {}: registered DRA plugin {}", config.nodeName(), plugin);
            sync(driverName);
            monitor(plugin, channel.getState(true));
            HealthService.choose(config.kubeletVersion(), config.featureGates(), supportedVersions)
                    .ifPresent(health -> openHealthStream(plugin, health));
        }
    }

    /**
     * The version check alone, as the plugin watcher runs it before registering.
     *
     * @throws IllegalArgumentException with the kubelet's error text
     */
    DraService validate(String driverName, String endpoint, List<String> supportedVersions) {
        try {
            return DraService.choose(config.kubeletVersion(), supportedVersions);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("invalid supported gRPC versions of DRA driver plugin " + driverName
                    + " at endpoint " + endpoint + ": " + e.getMessage(), e);
        }
    }

    /** The plugin removed its registration socket. */
    void deregister(String driverName, String endpoint) {
        DraPlugin removed = null;
        synchronized (lock) {
            List<DraPlugin> plugins = store.get(driverName);
            if (plugins == null) {
                return;
            }
            for (DraPlugin plugin : plugins) {
                if (plugin.endpoint.equals(endpoint)) {
                    removed = plugin;
                }
            }
            if (removed == null) {
                return;
            }
            plugins.remove(removed);
            if (plugins.isEmpty()) {
                store.remove(driverName);
            }
            var health = healthCalls.remove(removed);
            if (health != null) {
                health.cancel("plugin deregistered", null);
            }
            LOG.info("node {}: deregistered DRA plugin {}", config.nodeName(), removed);
            sync(driverName);
        }
        removed.channel.shutdownNow();
    }

    /** The instance calls go to: the most recently registered connected one, else the most recent one. */
    DraPlugin get(String driverName) throws NotRegisteredException {
        synchronized (lock) {
            List<DraPlugin> plugins = store.get(driverName);
            if (plugins == null || plugins.isEmpty()) {
                throw new NotRegisteredException(driverName);
            }
            for (int i = plugins.size() - 1; i >= 0; i--) {
                if (plugins.get(i).connected) {
                    return plugins.get(i);
                }
            }
            return plugins.get(plugins.size() - 1);
        }
    }

    /** The registered instances: driver name to their endpoints, in registration order. */
    Map<String, List<String>> registered() {
        synchronized (lock) {
            Map<String, List<String>> registered = new TreeMap<>();
            store.forEach((driverName, plugins) -> {
                if (!plugins.isEmpty()) {
                    registered.put(driverName, plugins.stream().map(plugin -> plugin.endpoint).toList());
                }
            });
            return registered;
        }
    }

    /** Whether a wipe of the driver's slices is waiting for its delay. */
    boolean wipePending(String driverName) {
        synchronized (lock) {
            return pendingWipes.containsKey(driverName);
        }
    }

    private void monitor(DraPlugin plugin, ConnectivityState state) {
        if (plugin.channel.isShutdown()) {
            return;
        }
        synchronized (lock) {
            boolean connected = state == ConnectivityState.READY;
            if (connected != plugin.connected && isRegistered(plugin)) {
                plugin.connected = connected;
                LOG.debug("node {}: plugin {} connected={}", config.nodeName(), plugin, connected);
                sync(plugin.driverName);
            }
        }
        plugin.channel.notifyWhenStateChanged(state, () -> {
            // Asking for the state with a connection request keeps gRPC reconnecting, so a plugin that comes back
            // on the same endpoint is noticed (upstream calls conn.Connect() on ConnEnd for the same reason).
            monitor(plugin, plugin.channel.getState(true));
        });
    }

    private boolean isRegistered(DraPlugin plugin) {
        return store.getOrDefault(plugin.driverName, List.of()).contains(plugin);
    }

    /** Schedules or cancels the wiping of a driver's slices; call with the lock held after every change. */
    private void sync(String driverName) {
        if (!running) {
            return;
        }
        if (usable(driverName)) {
            ScheduledFuture<?> wipe = pendingWipes.remove(driverName);
            if (wipe != null) {
                wipe.cancel(false);
                LOG.info("node {}: DRA driver {} is usable again, its ResourceSlices stay", config.nodeName(),
                        driverName);
            }
            return;
        }
        if (pendingWipes.containsKey(driverName)) {
            return;
        }
        long delay = config.timing().sliceWipingDelay().toMillis();
        pendingWipes.put(driverName, host.executor().schedule(() -> {
            synchronized (lock) {
                pendingWipes.remove(driverName);
            }
            LOG.info("node {}: DRA driver {} was unusable for {} ms, wiping its ResourceSlices", config.nodeName(),
                    driverName, delay);
            wiper.wipe(driverName, () -> running && !usable(driverName));
        }, delay, TimeUnit.MILLISECONDS));
    }

    /**
     * Whether calls can reach the driver: from 1.34 an instance must be connected; before, one registered instance
     * is enough (the older kubelets only wiped after the last instance deregistered).
     */
    private boolean usable(String driverName) {
        synchronized (lock) {
            List<DraPlugin> plugins = store.getOrDefault(driverName, List.of());
            if (!config.kubeletVersion().atLeast(1, 34)) {
                return !plugins.isEmpty();
            }
            return plugins.stream().anyMatch(plugin -> plugin.connected);
        }
    }

    private void openHealthStream(DraPlugin plugin, HealthService service) {
        ClientCall<NodeWatchResourcesRequest, NodeWatchResourcesResponse> call;
        synchronized (lock) {
            if (!running || !isRegistered(plugin)) {
                return;
            }
            call = plugin.channel.newCall(service.watch, CallOptions.DEFAULT.withWaitForReady());
            healthCalls.put(plugin, call);
        }
        ClientCalls.asyncServerStreamingCall(call, NodeWatchResourcesRequest.getDefaultInstance(),
                new StreamObserver<>() {
                    @Override
                    public void onNext(NodeWatchResourcesResponse response) {
                        healthListener.onHealth(plugin.driverName, response.getDevicesList());
                    }

                    @Override
                    public void onError(Throwable error) {
                        ended(Optional.of(Status.fromThrowable(error)));
                    }

                    @Override
                    public void onCompleted() {
                        ended(Optional.empty());
                    }

                    private void ended(Optional<Status> error) {
                        healthListener.onStreamEnded(plugin.driverName);
                        synchronized (lock) {
                            if (healthCalls.get(plugin) != call) {
                                return;
                            }
                            healthCalls.remove(plugin);
                        }
                        if (error.isPresent() && error.get().getCode() == Status.Code.UNIMPLEMENTED
                                && HealthService.stopsOnUnimplemented(config.kubeletVersion())) {
                            LOG.info("node {}: plugin {} does not implement {}, not retrying", config.nodeName(),
                                    plugin, service.serviceName);
                            return;
                        }
                        LOG.debug("node {}: health stream of {} ended ({}), retrying", config.nodeName(), plugin,
                                error.map(Status::toString).orElse("completed"));
                        host.executor().schedule(() -> openHealthStream(plugin, service),
                                config.timing().healthStreamRetry().toMillis(), TimeUnit.MILLISECONDS);
                    }
                });
    }
}
