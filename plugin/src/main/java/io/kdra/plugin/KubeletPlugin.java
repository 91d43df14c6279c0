package io.kdra.plugin;

import com.google.common.util.concurrent.MoreExecutors;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.RequestConfigBuilder;
import io.grpc.BindableService;
import io.grpc.ServerInterceptor;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.Epoll;
import io.grpc.netty.shaded.io.netty.util.concurrent.DefaultThreadFactory;
import io.kdra.plugin.cdi.FileOperations;
import io.kdra.plugin.cdi.LocalFileOperations;
import io.kdra.plugin.metadata.MetadataVersion;
import io.kdra.plugin.resourceslice.DriverResources;
import io.kdra.plugin.resourceslice.ResourceSlicePublisher;
import io.kdra.plugin.transport.PollingEventLoops;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The kubelet-facing side of a DRA driver, the Java counterpart of Go's
 * {@code k8s.io/dynamic-resource-allocation/kubeletplugin}: a registration server on
 * {@code <registrar dir>/<driver>-reg.sock} and a DRA server on {@code <plugin data dir>/dra.sock} that serves a
 * {@link DraPlugin} on every enabled version of the kubelet's DRA API, plus ResourceSlice publishing and the device
 * health stream.
 *
 * <pre>{@code
 * KubeletPlugin plugin = KubeletPlugin.builder("gpu.example.com", driver)
 *         .nodeName("node-1")
 *         .kubernetesClient(client)
 *         .start();
 * plugin.publishResources(DriverResources.of("node-1", Pool.ofDevices(devices)));
 * ...
 * plugin.stop();
 * }</pre>
 *
 * <p>The DRA server starts before the registration server, so the kubelet never finds a registration socket whose DRA
 * socket is not served yet. {@link #stop()} removes the registration socket first (the kubelet deregisters the plugin
 * when it disappears), lets running calls finish, and leaves no thread or socket behind.
 */
public final class KubeletPlugin implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(KubeletPlugin.class);
    /** Where the kubelet's plugin watcher looks for registration sockets by default. */
    public static final Path KUBELET_REGISTRY_DIR = Path.of("/var/lib/kubelet/plugins_registry");
    /** The parent of the default plugin data directory {@code <this>/<driver name>}. */
    public static final Path KUBELET_PLUGINS_DIR = Path.of("/var/lib/kubelet/plugins");
    /** The name of the lock file that serializes calls across instances during rolling updates. */
    public static final String SERIALIZE_LOCK_FILE = "serialize.lock";
    /** Where container runtimes read CDI specs by default. */
    public static final Path DEFAULT_CDI_DIR = Path.of("/var/run/cdi");
    /** The DRA socket's default file name in the plugin data directory, as upstream's {@code PluginSocket}. */
    public static final String DEFAULT_PLUGIN_SOCKET = "dra.sock";
    private static final Pattern DNS_SUBDOMAIN =
            Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
    private static final int MAX_DRIVER_NAME_LENGTH = 63;

    /** What {@link #publishResources} needs, fixed at start. */
    private record PublishSettings(KubernetesClient client, String nodeName, String nodeUid,
            ResourceSlicePublisher.ErrorHandler errorHandler, Duration syncDelay, boolean deleteOnStop,
            String reconcilePoolWithName) {
    }

    private final String driverName;
    private final Path registrationSocket;
    private final Path draSocket;
    private final List<String> supportedVersions;
    private final RegistrationService registration;
    private final HealthStreams health = new HealthStreams();
    private final boolean healthServed;
    private final boolean draServed;
    private final boolean registrationServed;
    private final PublishSettings publishing;
    private final Duration stopGracePeriod;
    private final EventLoopGroup eventLoops;
    private final ExecutorService executor;
    private GrpcSocketServer draServer;
    private GrpcSocketServer registrationServer;
    private ResourceSlicePublisher publisher;
    private boolean stopped;
    private final CountDownLatch stopCompleted = new CountDownLatch(1);

    private KubeletPlugin(Builder settings, Path registrationSocket, Path draSocket) {
        this.driverName = settings.driverName;
        this.registrationSocket = registrationSocket;
        this.draSocket = draSocket;
        this.supportedVersions = settings.services.stream().map(ServedService::advertisedName).toList();
        this.registration = new RegistrationService(driverName, draSocket.toString(), supportedVersions);
        this.healthServed = settings.draService && settings.services.stream().anyMatch(ServedService::isHealth);
        this.draServed = settings.draService;
        this.registrationServed = settings.registrationService;
        this.publishing = new PublishSettings(settings.client, settings.nodeName, settings.nodeUid,
                settings.sliceErrorHandler, settings.sliceSyncDelay, settings.deleteSlicesOnStop,
                settings.reconcilePoolWithName);
        this.stopGracePeriod = settings.stopGracePeriod;
        this.eventLoops = PollingEventLoops.create("kdra-plugin-io");
        this.executor = Executors.newCachedThreadPool(new DefaultThreadFactory("kdra-plugin-grpc", true));
    }

    /**
     * Starts configuring a plugin.
     *
     * @param driverName the DRA driver name: a lowercase DNS subdomain of at most 63 characters
     * @param plugin the driver
     */
    public static Builder builder(String driverName, DraPlugin plugin) {
        return new Builder(driverName, plugin);
    }

    /** The driver name. */
    public String driverName() {
        return driverName;
    }

    /** The registration socket path the kubelet watches. */
    public Path registrationSocket() {
        return registrationSocket;
    }

    /** The DRA socket path, as advertised in GetInfo. */
    public Path draSocket() {
        return draSocket;
    }

    /** {@code PluginInfo.supported_versions} as advertised, in preference order. */
    public List<String> supportedVersions() {
        return supportedVersions;
    }

    /** Whether this instance serves a DRAResourceHealth service, so that {@link #reportHealth} reaches the kubelet. */
    public boolean servesHealth() {
        return healthServed;
    }

    /** What the kubelet last reported through NotifyRegistrationStatus; empty before the first report. */
    public Optional<RegistrationStatus> registrationStatus() {
        return registration.status();
    }

    /**
     * Makes GetInfo fail with this message (gRPC status UNKNOWN) until cleared, to test the kubelet's registration
     * retries.
     *
     * @param message the error message, or {@code null} to answer normally again
     */
    public void setGetInfoError(String message) {
        registration.setGetInfoError(message);
    }

    /**
     * Makes NotifyRegistrationStatus fail with this message (gRPC status UNKNOWN) without recording the status, until
     * cleared; the kubelet then retries the registration from scratch.
     *
     * @param message the error message, or {@code null} to answer normally again
     */
    public void setNotifyRegistrationStatusError(String message) {
        registration.setNotifyError(message);
    }

    /**
     * Publishes the driver's node-local resources as ResourceSlices, or replaces what was published before. The first
     * call starts a {@link ResourceSlicePublisher} owned by this node; it runs in the background until {@link #stop()}.
     *
     * @throws IllegalStateException without Kubernetes client or node name
     * @throws IllegalArgumentException for pools that are not node-local
     */
    public synchronized void publishResources(DriverResources resources) {
        if (stopped) {
            throw new IllegalStateException("kubelet plugin for driver " + driverName + " is stopped");
        }
        if (publishing.client() == null) {
            throw new IllegalStateException("no Kubernetes client was set to publish resources");
        }
        if (publishing.nodeName() == null) {
            throw new IllegalStateException("no node name was set to publish resources");
        }
        if (publisher == null) {
            ResourceSlicePublisher.Builder builder = ResourceSlicePublisher.builder(publishing.client(), driverName)
                    .nodeOwner(publishing.nodeName(), publishing.nodeUid())
                    .errorHandler(publishing.errorHandler())
                    .syncDelay(publishing.syncDelay())
                    .deleteOnStop(publishing.deleteOnStop());
            if (publishing.reconcilePoolWithName() != null) {
                builder.reconcilePoolWithName(publishing.reconcilePoolWithName());
            }
            publisher = builder.start(resources);
        } else {
            publisher.update(resources);
        }
    }

    /**
     * Sends a complete device health report on every open NodeWatchResources stream; streams that open later start
     * with the latest report.
     *
     * @throws IllegalStateException if no health service is enabled
     */
    public void reportHealth(List<DeviceHealth> devices) {
        if (!healthServed) {
            throw new IllegalStateException("no DRAResourceHealth service is enabled for driver " + driverName);
        }
        health.report(List.copyOf(devices));
    }

    /**
     * Stops both servers and the publisher: removes the registration socket, completes health streams, lets running
     * calls finish within the grace period and cancels the rest, removes the DRA socket, and ends all threads the plugin
     * started. Calling it again, also from another thread while the first call runs, returns once the plugin is
     * stopped.
     */
    public void stop() {
        ResourceSlicePublisher startedPublisher;
        boolean alreadyStopping;
        synchronized (this) {
            alreadyStopping = stopped;
            stopped = true;
            startedPublisher = publisher;
        }
        if (alreadyStopping) {
            awaitStopped();
            return;
        }
        // Draining runs without the lock: a running call may use this plugin, for example to publish resources.
        try {
            if (registrationServer != null) {
                registrationServer.stop(stopGracePeriod);
            }
            health.completeAll();
            if (draServer != null) {
                draServer.stop(stopGracePeriod);
            }
            if (startedPublisher != null) {
                startedPublisher.stop();
            }
            executor.shutdown();
            if (!executor.awaitTermination(stopGracePeriod.toMillis(), TimeUnit.MILLISECONDS)) {
                LOG.warn("driver {}: gRPC threads still busy after stop, interrupting them", driverName);
                executor.shutdownNow();
            }
            eventLoops.shutdownGracefully(0, stopGracePeriod.toMillis(), TimeUnit.MILLISECONDS).await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            executor.shutdownNow();
            eventLoops.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
        } finally {
            // Also when a step failed (for example a throwing error handler): a later stop must not wait forever.
            stopCompleted.countDown();
        }
        LOG.info("kubelet plugin for driver {} stopped", driverName);
    }

    /** A second {@link #stop()} returns only when the first one is done. */
    private void awaitStopped() {
        try {
            stopCompleted.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Same as {@link #stop()}. */
    @Override
    public void close() {
        stop();
    }

    private void start(Builder settings) throws IOException {
        try {
            DeviceMetadataFiles metadataFiles = settings.deviceMetadata
                    ? new DeviceMetadataFiles(driverName, draSocket.getParent(), settings.cdiFiles,
                            List.copyOf(settings.metadataVersions))
                    : null;
            DraCalls calls = new DraCalls(settings.plugin, settings.claimLookup(),
                    settings.serializer(draSocket.getParent()), metadataFiles);
            List<BindableService> draServices = new ArrayList<>();
            for (ServedService service : settings.services) {
                draServices.add(service.bind(calls, health));
            }
            List<ServerInterceptor> interceptors = settings.interceptors();
            if (draServed) {
                draServer = GrpcSocketServer.start("dra " + driverName, draSocket, settings.pluginListener,
                        draServices, interceptors, eventLoops,
                        settings.callsOnEventLoop ? MoreExecutors.directExecutor() : executor,
                        settings.connectionIdleTimeout,
                        settings.servingErrorHandler);
            }
            if (registrationServed) {
                registrationServer = GrpcSocketServer.start("registrar " + driverName, registrationSocket,
                        settings.registrarListener, List.of(registration), interceptors, eventLoops, executor,
                        settings.connectionIdleTimeout, settings.servingErrorHandler);
            }
        } catch (IOException | RuntimeException e) {
            stop();
            throw e;
        }
        LOG.info("kubelet plugin for driver {} started: registration {}, DRA {}, services {}", driverName,
                registrationServed ? registrationSocket : "not served", draServed ? draSocket : "not served",
                supportedVersions);
    }

    /**
     * Options of a {@link KubeletPlugin}; the defaults match the Go helper. Directories are created when missing.
     */
    public static final class Builder {

        private final String driverName;
        private final DraPlugin plugin;
        private String nodeName;
        private String nodeUid;
        private KubernetesClient client;
        private ClaimLookup claimLookup;
        private Path registrarDirectory = KUBELET_REGISTRY_DIR;
        private String registrarSocketFilename;
        private Path pluginDataDirectory;
        private String rollingUpdateUid;
        private Path flockDirectory;
        private final Set<ServedService> services = EnumSet.of(ServedService.NODE_V1, ServedService.NODE_V1BETA1);
        private boolean serialize = true;
        private boolean callsOnEventLoop;
        private final List<ServerInterceptor> unaryInterceptors = new ArrayList<>();
        private final List<ServerInterceptor> streamInterceptors = new ArrayList<>();
        private ListenerFactory registrarListener;
        private ListenerFactory pluginListener;
        private Duration stopGracePeriod = Duration.ofSeconds(5);
        private Duration connectionIdleTimeout = Duration.ofMinutes(5);
        private ResourceSlicePublisher.ErrorHandler sliceErrorHandler =
                (error, context) -> LOG.warn("{}: {}", context, error.getMessage());
        private Duration sliceSyncDelay = ResourceSlicePublisher.DEFAULT_SYNC_DELAY;
        private boolean deleteSlicesOnStop;
        private String reconcilePoolWithName;
        private boolean deviceMetadata;
        private final Set<MetadataVersion> metadataVersions = new LinkedHashSet<>();
        private FileOperations cdiFiles = new LocalFileOperations(DEFAULT_CDI_DIR);
        private boolean registrationService = true;
        private boolean draService = true;
        private String pluginSocket = DEFAULT_PLUGIN_SOCKET;
        private Consumer<Exception> servingErrorHandler =
                error -> LOG.error("kubelet plugin: serving failed: {}", error.getMessage(), error);

        private Builder(String driverName, DraPlugin plugin) {
            this.driverName = driverName;
            this.plugin = Objects.requireNonNull(plugin, "plugin");
        }

        /** The node the plugin runs on; needed to publish ResourceSlices. */
        public Builder nodeName(String nodeName) {
            this.nodeName = nodeName;
            return this;
        }

        /** The UID of the Node object; looked up once when publishing if not given. */
        public Builder nodeUid(String nodeUid) {
            this.nodeUid = nodeUid;
            return this;
        }

        /** API access: fetching claims for NodePrepareResources and publishing ResourceSlices. */
        public Builder kubernetesClient(KubernetesClient client) {
            this.client = client;
            return this;
        }

        /** Where NodePrepareResources gets claims from; by default a GET through the Kubernetes client. */
        public Builder claimLookup(ClaimLookup claimLookup) {
            this.claimLookup = claimLookup;
            return this;
        }

        /** The directory the kubelet watches for registration sockets, default {@link #KUBELET_REGISTRY_DIR}. */
        public Builder registrarDirectory(Path directory) {
            this.registrarDirectory = directory;
            return this;
        }

        /**
         * The registration socket's file name, default {@code <driver>-reg.sock}; only for compatibility with older
         * installations. Excludes {@link #rollingUpdate}.
         */
        public Builder registrarSocketFilename(String fileName) {
            this.registrarSocketFilename = fileName;
            return this;
        }

        /**
         * The directory of the DRA socket, default {@code /var/lib/kubelet/plugins/<driver>}. It must not be shared
         * with other drivers; instances of one driver share it during rolling updates.
         */
        public Builder pluginDataDirectory(Path directory) {
            this.pluginDataDirectory = directory;
            return this;
        }

        /**
         * Lets two instances run side by side during a rolling update (kubelet 1.33+): sockets become
         * {@code <driver>-<uid>-reg.sock} (shortened when that path would not fit a Unix socket address, see
         * {@link RegistrationSocketName}) and {@code dra-<uid>.sock}, and calls are serialized across instances through
         * the lock file {@code serialize.lock}.
         *
         * @param podUid the pod UID, unique per instance; empty or {@code null} turns rolling updates off
         */
        public Builder rollingUpdate(String podUid) {
            this.rollingUpdateUid = podUid == null || podUid.isEmpty() ? null : podUid;
            return this;
        }

        /** Where the rolling-update lock file is created, default the plugin data directory. */
        public Builder flockDirectory(Path directory) {
            this.flockDirectory = directory;
            return this;
        }

        /**
         * Serve {@code k8s.io.kubelet.pkg.apis.dra.v1.DRAPlugin} (kubelet 1.34+), advertised as {@code v1.DRAPlugin};
         * on by default.
         */
        public Builder nodeV1(boolean enabled) {
            return serve(ServedService.NODE_V1, enabled);
        }

        /**
         * Serve {@code k8s.io.kubelet.pkg.apis.dra.v1beta1.DRAPlugin} (kubelet 1.32+), advertised as
         * {@code v1beta1.DRAPlugin}; on by default.
         */
        public Builder nodeV1beta1(boolean enabled) {
            return serve(ServedService.NODE_V1BETA1, enabled);
        }

        /**
         * Serve {@code v1alpha3.Node} (kubelet 1.31 to 1.33), advertised as {@code v1alpha3.NodeService}; off by
         * default.
         */
        public Builder nodeV1alpha4(boolean enabled) {
            return serve(ServedService.NODE_V1ALPHA4, enabled);
        }

        /** Serve {@code v1.DRAResourceHealth}; off by default. */
        public Builder healthV1(boolean enabled) {
            return serve(ServedService.HEALTH_V1, enabled);
        }

        /** Serve {@code v1beta1.DRAResourceHealth}; off by default. */
        public Builder healthV1beta1(boolean enabled) {
            return serve(ServedService.HEALTH_V1BETA1, enabled);
        }

        /** Serve {@code v1alpha1.DRAResourceHealth} (kubelet 1.34+ with ResourceHealthStatus); off by default. */
        public Builder healthV1alpha1(boolean enabled) {
            return serve(ServedService.HEALTH_V1ALPHA1, enabled);
        }

        /**
         * Whether prepare and unprepare calls reach the driver one at a time (default). Turn it off only if the driver
         * handles concurrency itself.
         */
        public Builder serialize(boolean enabled) {
            this.serialize = enabled;
            return this;
        }

        /**
         * Runs the DRA service's calls on the gRPC event loop thread instead of handing each to a worker thread: two
         * thread hand-offs fewer per call, about a quarter off a call's latency and twice the calls per second on an
         * otherwise idle machine (docs/kubelet-plugin-library.md, "Benchmark"). Only for a driver whose prepare and
         * unprepare, interceptors and {@link #claimLookup claim lookup} never block (no API request, no waiting on
         * another thread, no lock file shared with another instance): while one call blocks, this plugin's DRA socket
         * answers nothing else. Off by default.
         */
        public Builder callsOnEventLoop(boolean enabled) {
            this.callsOnEventLoop = enabled;
            return this;
        }

        /**
         * Adds an interceptor for unary calls of both servers (registration and DRA). Interceptors run in the order
         * they were added, the first one outermost.
         */
        public Builder unaryInterceptor(ServerInterceptor interceptor) {
            unaryInterceptors.add(Objects.requireNonNull(interceptor, "interceptor"));
            return this;
        }

        /** Adds an interceptor for streaming calls (health streams); ordered like {@link #unaryInterceptor}. */
        public Builder streamInterceptor(ServerInterceptor interceptor) {
            streamInterceptors.add(Objects.requireNonNull(interceptor, "interceptor"));
            return this;
        }

        /** Takes registration connections from this factory instead of creating the registration socket. */
        public Builder registrarListener(ListenerFactory factory) {
            this.registrarListener = factory;
            return this;
        }

        /** Takes DRA connections from this factory instead of creating the DRA socket. */
        public Builder pluginListener(ListenerFactory factory) {
            this.pluginListener = factory;
            return this;
        }

        /** How long {@link KubeletPlugin#stop()} lets running calls finish before cancelling them; default 5 s. */
        public Builder stopGracePeriod(Duration gracePeriod) {
            this.stopGracePeriod = gracePeriod;
            return this;
        }

        /**
         * How long a connection to either socket may stay open without a call in flight, including one that never
         * sends a request, before the plugin closes it (with a GOAWAY; a gRPC client reconnects on its next call);
         * default 5 minutes.
         */
        public Builder connectionIdleTimeout(Duration timeout) {
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("connectionIdleTimeout must be positive, got " + timeout);
            }
            this.connectionIdleTimeout = timeout;
            return this;
        }

        /** Where ResourceSlice publishing problems go; the default logs them. */
        public Builder resourceSliceErrorHandler(ResourceSlicePublisher.ErrorHandler handler) {
            this.sliceErrorHandler = Objects.requireNonNull(handler, "handler");
            return this;
        }

        /** See {@link ResourceSlicePublisher.Builder#syncDelay}; default 30 s as upstream. */
        public Builder resourceSliceSyncDelay(Duration delay) {
            this.sliceSyncDelay = delay;
            return this;
        }

        /**
         * Publishes one pool visible beyond this node: see {@link ResourceSlicePublisher.Builder#reconcilePoolWithName}.
         */
        public Builder reconcilePoolWithName(String poolName) {
            this.reconcilePoolWithName = poolName;
            return this;
        }

        /**
         * Whether to serve the registration socket (default). Without it the plugin serves only its DRA socket, for a
         * driver whose registration runs elsewhere (upstream's {@code RegistrationService(false)}); the other instance
         * advertises the same DRA socket path.
         */
        public Builder registrationService(boolean enabled) {
            this.registrationService = enabled;
            return this;
        }

        /**
         * Whether to serve the DRA socket (default). Without it the plugin serves only registration and advertises the
         * DRA socket another instance serves (upstream's {@code DRAService(false)}); no health reports then.
         */
        public Builder draService(boolean enabled) {
            this.draService = enabled;
            return this;
        }

        /**
         * The DRA socket's file name in the plugin data directory, default {@value #DEFAULT_PLUGIN_SOCKET}; with
         * rolling updates the instance UID goes before the extension ({@code dra-<uid>.sock}).
         */
        public Builder pluginSocket(String fileName) {
            this.pluginSocket = fileName;
            return this;
        }

        /**
         * Receives what makes a server stop serving on its own, such as an injected listener whose {@code accept}
         * fails while the plugin runs (upstream's {@code HandleError} for a failed {@code Serve}); the default logs
         * it. Failures while the plugin stops are not reported.
         */
        public Builder servingErrorHandler(Consumer<Exception> handler) {
            this.servingErrorHandler = Objects.requireNonNull(handler, "handler");
            return this;
        }

        /** Whether {@link KubeletPlugin#stop()} deletes the published ResourceSlices; off by default. */
        public Builder deleteResourceSlicesOnStop(boolean delete) {
            this.deleteSlicesOnStop = delete;
            return this;
        }

        /**
         * Writes device metadata files for prepared claims and mounts them into the containers that use them (KEP-5304,
         * upstream's {@code EnableDeviceMetadata}); off by default. Needs {@link #metadataVersions}. The files say, per
         * request, which devices the claim got and their {@link PreparedDevice#metadata()}; each is a CDI mount at
         * its {@link io.kdra.plugin.metadata.MetadataPaths} location, added to the request's devices, so the container
         * runtime must read the CDI directory of {@link #cdiFiles}.
         */
        public Builder enableDeviceMetadata(boolean enabled) {
            this.deviceMetadata = enabled;
            return this;
        }

        /**
         * The versions each device metadata file holds, in this order: readers take the first they know, so list the
         * newest first (upstream's {@code MetadataVersions}). There is no default.
         */
        public Builder metadataVersions(MetadataVersion... versions) {
            metadataVersions.clear();
            metadataVersions.addAll(List.of(versions));
            return this;
        }

        /**
         * Where the CDI specs of the device metadata mounts go, default {@link #DEFAULT_CDI_DIR} on this machine; a
         * remote node's directory for a plugin that serves a remote kubelet.
         */
        public Builder cdiFiles(FileOperations files) {
            this.cdiFiles = Objects.requireNonNull(files, "files");
            return this;
        }

        /**
         * Validates the options and starts the DRA server, then the registration server.
         *
         * @throws IllegalArgumentException for invalid or conflicting options
         * @throws IOException if a socket cannot be created or an injected listener fails
         */
        public KubeletPlugin start() throws IOException {
            if (driverName == null || driverName.isEmpty()) {
                throw new IllegalArgumentException("driver name must be set");
            }
            if (driverName.length() > MAX_DRIVER_NAME_LENGTH || !DNS_SUBDOMAIN.matcher(driverName).matches()) {
                throw new IllegalArgumentException("driver name \"" + driverName
                        + "\" must be a lowercase DNS subdomain of at most 63 characters");
            }
            if (rollingUpdateUid != null && registrarSocketFilename != null) {
                throw new IllegalArgumentException(
                        "rolling updates and explicit registration socket filename are mutually exclusive");
            }
            checkFileNamePart("rolling update UID", rollingUpdateUid);
            checkFileNamePart("registration socket filename", registrarSocketFilename);
            if (deviceMetadata && metadataVersions.isEmpty()) {
                throw new IllegalArgumentException("device metadata is enabled but no metadata version is set; "
                        + "choose from " + List.of(MetadataVersion.values()));
            }
            checkFileNamePart("DRA socket filename", pluginSocket);
            if (!registrationService && !draService) {
                throw new IllegalArgumentException("neither the registration nor the DRA service is enabled");
            }
            if (services.stream().allMatch(ServedService::isHealth)) {
                throw new IllegalArgumentException("no supported DRA gRPC API is implemented and enabled");
            }
            if (!Epoll.isAvailable()) {
                throw new IOException("the epoll transport for Unix sockets is unavailable",
                        Epoll.unavailabilityCause());
            }
            String uidPart = rollingUpdateUid == null ? "" : "-" + rollingUpdateUid;
            Path registryDirectory = registrarDirectory.toAbsolutePath();
            Path registration = registryDirectory.resolve(registrarSocketFilename != null ? registrarSocketFilename
                    : RegistrationSocketName.choose(registryDirectory, driverName, rollingUpdateUid));
            Path dataDirectory =
                    pluginDataDirectory != null ? pluginDataDirectory : KUBELET_PLUGINS_DIR.resolve(driverName);
            Path dra = dataDirectory.toAbsolutePath().resolve(withInstancePart(pluginSocket, uidPart));
            KubeletPlugin plugin = new KubeletPlugin(this, registration, dra);
            plugin.start(this);
            return plugin;
        }

        private Builder serve(ServedService service, boolean enabled) {
            if (enabled) {
                services.add(service);
            } else {
                services.remove(service);
            }
            return this;
        }

        /** {@code dra.sock} → {@code dra-<uid>.sock}: the part goes before the extension, if there is one. */
        private static String withInstancePart(String fileName, String part) {
            int dot = fileName.lastIndexOf('.');
            return dot <= 0 ? fileName + part : fileName.substring(0, dot) + part + fileName.substring(dot);
        }

        private static void checkFileNamePart(String what, String value) {
            if (value != null && (value.contains("/") || value.isEmpty())) {
                throw new IllegalArgumentException(what + " \"" + value + "\" must be a non-empty name without '/'");
            }
        }

        private CallSerializer serializer(Path dataDirectory) throws IOException {
            if (!serialize) {
                return CallSerializer.disabled();
            }
            if (rollingUpdateUid == null) {
                return CallSerializer.inProcess();
            }
            Path directory = flockDirectory != null ? flockDirectory : dataDirectory;
            // Fail at start rather than on every call when the lock file cannot be created.
            try {
                Files.createDirectories(directory);
            } catch (IOException e) {
                throw new IOException("create the serialization lock directory: " + e.getMessage(), e);
            }
            return CallSerializer.fileLock(directory.resolve(SERIALIZE_LOCK_FILE));
        }

        private ClaimLookup claimLookup() {
            if (claimLookup != null) {
                return claimLookup;
            }
            if (client == null) {
                return (namespace, name) -> {
                    throw new IllegalStateException("no Kubernetes client was configured");
                };
            }
            // The kubelet retries a failed prepare itself: the client's own retries (about 20 s with fabric8's
            // defaults while the API server is down) would only delay the error it reports.
            KubernetesClient once = client.newClient(new RequestConfigBuilder(client.getConfiguration()
                    .getRequestConfig()).withRequestRetryBackoffLimit(0).build()).adapt(KubernetesClient.class);
            return (namespace, name) -> once.dynamicResourceAllocation().v1().resourceClaims()
                    .inNamespace(namespace).withName(name).get();
        }

        private List<ServerInterceptor> interceptors() {
            List<ServerInterceptor> all = new ArrayList<>();
            unaryInterceptors.forEach(interceptor -> all.add(new MethodTypeInterceptor(interceptor, true)));
            streamInterceptors.forEach(interceptor -> all.add(new MethodTypeInterceptor(interceptor, false)));
            return all;
        }
    }
}
