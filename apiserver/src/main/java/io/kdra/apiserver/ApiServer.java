package io.kdra.apiserver;

import io.kdra.apiserver.admission.AdmissionPlugin;
import io.kdra.apiserver.api.KindRegistry;
import io.kdra.apiserver.auth.Authenticator;
import io.kdra.apiserver.auth.UserInfo;
import io.kdra.apiserver.http.ApiHttpServer;
import io.kdra.apiserver.nodeproxy.NodeProxy;
import io.kdra.apiserver.http.HttpSettings;
import io.kdra.apiserver.lifecycle.ControllerManager;
import io.kdra.apiserver.protobuf.KubeProtobuf;
import io.kdra.apiserver.registry.PodStatusGates;
import io.kdra.apiserver.registry.Registry;
import io.kdra.apiserver.resource.ResourceKinds;
import io.kdra.apiserver.scheduling.SchedulingKinds;
import io.kdra.apiserver.storage.Store;
import io.kdra.kube.ExpressionChecker;
import io.kdra.kube.stream.ExecProtocols;
import io.kdra.kube.stream.PortForwardProtocols;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpServerOptions;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The in-memory Kubernetes API server on loopback: start it, point a client at {@link #url()} with
 * {@link #adminToken()} (or the kubeconfig from {@link #writeKubeconfig(Path)}), close it when done.
 *
 * <pre>{@code
 * try (ApiServer server = ApiServer.builder().build().start()) {
 *     server.writeKubeconfig(Path.of("kubeconfig"));
 * }
 * }</pre>
 */
public final class ApiServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ApiServer.class);

    private final ApiServerConfig config;
    private final Store store;
    private final Registry registry;
    private final Authenticator authenticator;
    private final Vertx vertx;
    private final ApiHttpServer http;
    private final ControllerManager controllers;
    private final ServerCertificate certificate;
    /** The options of both listeners, without TLS. */
    private final HttpServerOptions plain;
    /** Where the component listener is to listen (0: a free port), or -1 when there is none. */
    private final int componentPortWanted;
    private int port;
    private int componentPort = -1;
    private volatile boolean closed;

    private ApiServer(ApiServerConfig config, KindRegistry kinds, List<AdmissionPlugin> extraAdmission, Clock clock,
            long historyBytes, HttpSettings.ConnectionTimeouts timeouts, boolean componentListener,
            ApiServer predecessor) {
        this.config = config;
        this.store = predecessor != null ? predecessor.store : new Store(config.historySize(), historyBytes);
        this.authenticator = predecessor != null ? predecessor.authenticator : new Authenticator();
        BuiltinPlugins plugins = new BuiltinPlugins(store, config.featureGates());
        List<AdmissionPlugin> admission = new ArrayList<>(plugins.admission());
        admission.addAll(extraAdmission);
        this.registry = new Registry(kinds, store, plugins.validators(), admission, clock, config.featureGates());
        this.controllers = new ControllerManager(registry, config.featureGates());
        this.vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(config.eventLoops()));
        this.certificate = !config.tls() ? null
                : predecessor != null ? predecessor.certificate : ServerCertificate.generate();
        // No cleartext HTTP/2 (kube-apiserver serves HTTP/2 only over TLS with ALPN; no Kubernetes client speaks h2c):
        // Vert.x then makes each connection as it is accepted, so the idle timeout also closes one whose first
        // request never completes its headers.
        this.plain = new HttpServerOptions().setHost(ApiServerConfig.LOOPBACK)
                .setHttp2ClearTextEnabled(false)
                .setMaxWebSocketFrameSize(64 * 1024 * 1024).setMaxWebSocketMessageSize(64 * 1024 * 1024)
                .setWebSocketSubProtocols(Stream.concat(ExecProtocols.SERVED.stream(),
                        PortForwardProtocols.SERVED.stream()).toList());
        this.componentPortWanted = !componentListener || certificate == null ? -1
                : predecessor != null && predecessor.componentPort > 0 ? predecessor.componentPort : 0;
        HttpSettings settings = new HttpSettings(config.maxBodyBytes(), config.watchQueueCapacity(),
                config.bookmarkIntervalMillis(), config.defaultWatchTimeoutSeconds(),
                "v" + config.kubernetesVersion() + ".0", timeouts);
        this.http = new ApiHttpServer(vertx, config.eventLoops(), registry, authenticator, settings, clock);
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Creates the namespaces every cluster has ({@code default}, {@code kube-system}, {@code kube-public},
     * {@code kube-node-lease}), starts the controllers (garbage collector, namespace finalizer, quota status) and
     * binds the port.
     */
    public ApiServer start() {
        // building the protobuf descriptors takes a second or more: not on an event loop, in the first request
        KubeProtobuf.loadDescriptors();
        controllers.start();
        SystemNamespaces.create(registry);
        HttpServerOptions serving = new HttpServerOptions(plain).setPort(config.port());
        if (certificate != null) {
            serving.setSsl(true).setKeyCertOptions(certificate.keyCertOptions());
        }
        port = http.listen(serving);
        if (componentPortWanted >= 0) {
            componentPort = http.listen(new HttpServerOptions(plain).setPort(componentPortWanted));
            LOG.info("kdra API server listening on {}, and for the cluster's components on {}", url(),
                    componentUrl());
        } else {
            LOG.info("kdra API server listening on {}", url());
        }
        return this;
    }

    public int port() {
        return port;
    }

    public String url() {
        return (certificate == null ? "http" : "https") + "://" + ApiServerConfig.LOOPBACK + ":" + port;
    }

    /**
     * The URL for clients in this process: the component listener's plain {@code http://127.0.0.1:<port>} when the
     * server has one ({@link Builder#componentListener()}), {@link #url()} otherwise. Written into no kubeconfig.
     */
    public String componentUrl() {
        return componentPort > 0 ? "http://" + ApiServerConfig.LOOPBACK + ":" + componentPort : url();
    }

    public String adminToken() {
        return authenticator.adminToken();
    }

    /** @return the server's CA certificate in PEM, or null when serving plain http */
    public String caCertificatePem() {
        return certificate == null ? null : certificate.caPem();
    }

    /** @return a new bearer token that authenticates as the given identity */
    public String issueToken(UserInfo user) {
        return authenticator.issue(user);
    }

    public Path writeKubeconfig(Path file) throws IOException {
        return Kubeconfig.write(file, url(), adminToken(), caCertificatePem());
    }

    public Store store() {
        return store;
    }

    public ApiServerConfig config() {
        return config;
    }

    @Override
    public void close() {
        closed = true;
        try {
            http.stop();
        } finally {
            controllers.close();
            vertx.close().await();
        }
    }

    /**
     * Collects the configuration and the kind plug-ins. The resource.k8s.io kinds are defaulted, converted and
     * validated as {@link ResourceKinds} describes; their CEL selectors are checked by {@link #celChecker}.
     */
    public static final class Builder {
        private final Clock clock = Clock.systemUTC();
        private ApiServerConfig config = ApiServerConfig.defaults();
        private final KindRegistry.Builder kinds = KindRegistry.builder();
        private final List<AdmissionPlugin> admission = new ArrayList<>();
        private ExpressionChecker celChecker = ExpressionChecker.ACCEPT_ALL;
        private long historyBytes = defaultHistoryBytes();
        private HttpSettings.ConnectionTimeouts timeouts = HttpSettings.ConnectionTimeouts.DEFAULTS;
        private ApiServer predecessor;
        private boolean componentListener;

        private Builder() {
            ResourceKinds.defaulters(clock).forEach((kind, defaulter) ->
                    kinds.defaulter(ResourceKinds.GROUP, kind, defaulter));
            ResourceKinds.converters().forEach((kind, converter) ->
                    kinds.converter(ResourceKinds.GROUP, kind, converter));
        }

        public Builder config(ApiServerConfig config) {
            this.config = config;
            return this;
        }

        /**
         * @return the registry builder, to add validators (they run after the built-in ones), or to replace
         *     defaulters and version converters, per group and kind
         */
        public KindRegistry.Builder kinds() {
            return kinds;
        }

        /**
         * @param checker compiles the CEL selectors of DeviceClasses, ResourceClaims, ResourceClaimTemplates and
         *     ResourceSlices; by default every expression within the 10 Ki length limit is accepted
         */
        public Builder celChecker(ExpressionChecker checker) {
            this.celChecker = Objects.requireNonNull(checker, "checker");
            return this;
        }

        /**
         * @param bytes how many bytes of object JSON the watch history may hold besides its event count limit; by
         *     default an eighth of the maximum heap, so that rewriting large objects cannot exhaust memory with
         *     states only the history still holds
         */
        public Builder historyBytes(long bytes) {
            if (bytes < 1) {
                throw new IllegalArgumentException("historyBytes must be positive, got " + bytes);
            }
            this.historyBytes = bytes;
            return this;
        }

        private static long defaultHistoryBytes() {
            return Runtime.getRuntime().maxMemory() / 8;
        }

        /**
         * @param idle how long a connection may stay open with no request in flight (by default 90 s, as
         *     kube-apiserver); a connection that never completes its request's headers counts as idle
         * @param body how long a request's body may take once its headers arrived (by default 60 s)
         */
        public Builder connectionTimeouts(Duration idle, Duration body) {
            this.timeouts = new HttpSettings.ConnectionTimeouts(idle, body);
            return this;
        }

        /**
         * Builds a restart of {@code previous}, which must be closed by then, as kube-apiserver restarts over the same
         * etcd: the same stored objects and resourceVersions, tokens, serving certificate and, unless the config names
         * another, port, so that clients of the old server go on against the new one once their connections are
         * reopened. Everything else (the emulated version, feature gates, validation, admission, the built-in
         * controllers) comes from this builder, as from a new binary's flags.
         */
        public Builder restartOf(ApiServer previous) {
            this.predecessor = Objects.requireNonNull(previous, "previous");
            return this;
        }

        /**
         * Also listens on a second loopback port without TLS, for API clients in the same process (the embedded
         * cluster's scheduler, controllers and kubelets), which then spend no CPU on encrypting traffic that never
         * leaves the process. Every request there is authenticated and authorized as on the https port; only the
         * transport differs. {@link #componentUrl()} names it; no kubeconfig does. Nothing changes when TLS is off.
         */
        public Builder componentListener() {
            this.componentListener = true;
            return this;
        }

        public Builder admission(AdmissionPlugin plugin) {
            admission.add(plugin);
            return this;
        }

        public ApiServer build() {
            ApiServerConfig serving = config;
            if (predecessor != null) {
                if (!predecessor.closed) {
                    throw new IllegalStateException("close the API server on port " + predecessor.port
                            + " before building its restart: the restart binds the same port");
                }
                if (serving.tls() != (predecessor.certificate != null)) {
                    throw new IllegalArgumentException("a restarted API server serves as its predecessor did: tls "
                            + (predecessor.certificate != null) + ", got tls " + serving.tls());
                }
                if (serving.port() == 0) {
                    serving = serving.withPort(predecessor.port);
                }
            }
            KindRegistry.Builder withResourceValidators = KindRegistry.builder();
            ResourceKinds.validators(celChecker).forEach((kind, validator) ->
                    withResourceValidators.validator(ResourceKinds.GROUP, kind, validator));
            ResourceKinds.disabledFields(serving.featureGates()).forEach((kind, fields) ->
                    withResourceValidators.disabledFields(ResourceKinds.GROUP, kind, fields));
            SchedulingKinds.register(withResourceValidators, serving.featureGates());
            PodStatusGates.register(withResourceValidators, serving.featureGates());
            return new ApiServer(serving, withResourceValidators.addAll(kinds).build(), admission, clock,
                    historyBytes, timeouts, componentListener, predecessor);
        }
    }
}
