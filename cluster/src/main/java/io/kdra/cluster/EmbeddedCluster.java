package io.kdra.cluster;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kdra.allocator.AllocatorFeatures;
import io.kdra.allocator.StructuredAllocator;
import io.kdra.allocator.cel.CelSelectorCompiler;
import io.kdra.apiserver.ApiServer;
import io.kdra.apiserver.ApiServerConfig;
import io.kdra.apiserver.auth.UserInfo;
import io.kdra.cluster.controller.KubeControllerManager;
import io.kdra.cluster.kubelet.KubeletConfig;
import io.kdra.cluster.kubelet.KubeletHost;
import io.kdra.cluster.kubelet.SimulatedKubelet;
import io.kdra.cluster.kubelet.server.KubeletServer;
import io.kdra.cluster.runtime.ContainerRuntime;
import io.kdra.cluster.scheduler.Scheduler;
import io.kdra.kube.FeatureGates;
import io.kdra.kube.KubernetesVersion;
import io.kdra.kube.client.KubeClients;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * kdra's embedded DRA control plane: the in-memory API server, the scheduler with the structured allocator, the
 * controllers, and one simulated kubelet per node with its container runtime and HTTP server. Every component is an
 * API client over HTTP with its own identity; the kubelets talk to DRA drivers over real gRPC on real Unix sockets in
 * each node's directories.
 *
 * <pre>{@code
 * try (EmbeddedCluster cluster = EmbeddedCluster.builder().nodes(2).start()) {
 *     cluster.writeKubeconfig(Path.of("kubeconfig"));
 *     ClusterNode node = cluster.node("node-1");   // node.pluginsRegistryDirectory() is where a driver registers
 * }
 * }</pre>
 *
 * {@link #close()} stops every component, kills every container process, and removes the node directories.
 */
public final class EmbeddedCluster implements AutoCloseable {

    /** The name the scheduler serves, the API server's default for {@code spec.schedulerName}. */
    public static final String SCHEDULER_NAME = "default-scheduler";

    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedCluster.class);
    private static final Duration COMPONENT_REQUEST_TIMEOUT = Duration.ofMinutes(2);

    /** The {@code --feature-gates} as given, which every component applies again when it restarts as another version. */
    private final String featureGatesFlag;
    private final Path baseDirectory;
    private final KubeClients clients;
    private final KubernetesClient admin;
    private final Map<String, ClusterNode> nodes = Collections.synchronizedMap(new LinkedHashMap<>());
    /** The scheduler, the controllers and their API clients, in start order. */
    private final List<AutoCloseable> controlPlane = new ArrayList<>();
    private volatile ClusterConfig config;
    private volatile ApiServer apiServer;
    private final ScheduledExecutorService runtimeTimers =
            Executors.newSingleThreadScheduledExecutor(daemon("kdra-runtime-timer"));
    private final ExecutorService outputPumps = Executors.newCachedThreadPool(daemon("kdra-container-output"));
    private KubeletHost kubeletHost;
    private Duration startTime;
    private boolean closed;

    private EmbeddedCluster(ClusterConfig config, String featureGatesFlag, Path baseDirectory, ApiServer apiServer) {
        this.config = config;
        this.featureGatesFlag = featureGatesFlag;
        this.baseDirectory = baseDirectory;
        this.apiServer = apiServer;
        this.clients = KubeClients.create();
        this.admin = client(null, "kdra");
    }

    public static Builder builder() {
        return new Builder();
    }

    private void startComponents(Consumer<String> progress) {
        startControlPlane();
        progress.accept("scheduler and controllers running");
        kubeletHost = KubeletHost.create();
        List<ClusterNode> created = new ArrayList<>();
        int index = 0;
        for (NodeSpec spec : config.nodes()) {
            ClusterNode node = createNode(spec, baseDirectory.resolve(Integer.toString(++index)));
            nodes.put(spec.name(), node);
            created.add(node);
        }
        startKubelets(created, node -> progress.accept("node " + node.name() + " Ready"));
    }

    /** Starts kube-controller-manager's and kube-scheduler's parts as {@link #config} has them. */
    private void startControlPlane() {
        FeatureGates gates = config.featureGates();
        KubernetesClient controllersClient = client(user("system:kube-controller-manager"), "kube-controller-manager");
        controlPlane.add(controllersClient);
        KubeControllerManager controllers = KubeControllerManager.builder(controllersClient)
                .timing(config.timing()).featureGates(gates).build();
        controlPlane.add(controllers);
        controllers.start();
        StructuredAllocator allocator = new StructuredAllocator(
                CelSelectorCompiler.create(CelSelectorCompiler.Options.from(gates)), AllocatorFeatures.from(gates));
        KubernetesClient schedulerClient = client(user("system:kube-scheduler"), "kube-scheduler");
        controlPlane.add(schedulerClient);
        Scheduler scheduler = new Scheduler(schedulerClient, allocator, config.timing(),
                SCHEDULER_NAME, gates.enabled(FeatureGates.DRA_EXTENDED_RESOURCE));
        if (gates.enabled(FeatureGates.GENERIC_WORKLOAD) && gates.enabled(FeatureGates.DRA_WORKLOAD_RESOURCE_CLAIMS)) {
            scheduler.withPodGroupClaims();
        }
        if (gates.enabled(FeatureGates.DRA_NODE_ALLOCATABLE_RESOURCES)) {
            scheduler.withNodeAllocatableResources();
        }
        controlPlane.add(scheduler);
        scheduler.start();
    }

    /** Stops the scheduler and the controllers, last started first, and closes their clients. */
    private void stopControlPlane(List<RuntimeException> failures) {
        for (int i = controlPlane.size() - 1; i >= 0; i--) {
            AutoCloseable component = controlPlane.get(i);
            run(failures, () -> {
                try {
                    component.close();
                } catch (Exception e) {
                    throw new IllegalStateException("closing " + component.getClass().getSimpleName() + " failed", e);
                }
            });
        }
        controlPlane.clear();
    }

    /** Starts the kubelets in parallel; returns when every node is Ready. */
    private static void startKubelets(List<ClusterNode> starting, Consumer<ClusterNode> ready) {
        try {
            CompletableFuture.allOf(starting.stream().map(node -> CompletableFuture.runAsync(() -> {
                node.startKubelet();
                ready.accept(node);
            })).toArray(CompletableFuture[]::new)).join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException cause ? cause : e;
        }
    }

    private ClusterNode createNode(NodeSpec spec, Path root) {
        ContainerRuntime runtime = config.runtime().create(root, spec.name(), config.cgroups(), runtimeTimers,
                outputPumps);
        KubeletServer server = null;
        try {
            ClusterNode[] node = new ClusterNode[1];
            server = new KubeletServer(clients.vertx(), runtime, () -> node[0].kubeletMetrics());
            node[0] = new ClusterNode(spec.name(), runtime, server, this::client);
            int port = server.start();
            installKubelet(node[0], new KubeletConfig(spec.name(), root, spec.labels(),
                    KubeletConfig.DEFAULT_CAPACITY, config.kubeletVersion(), config.featureGates(), config.timing(),
                    port), runtime);
            return node[0];
        } catch (RuntimeException e) {
            if (server != null) {
                server.close();
            }
            runtime.close();
            throw e;
        }
    }

    /** Gives the node a new, stopped kubelet with the settings, and an API client with the node's identity. */
    private void installKubelet(ClusterNode node, KubeletConfig settings, ContainerRuntime runtime) {
        KubernetesClient kubeletClient = client(new UserInfo("system:node:" + settings.nodeName(), "",
                List.of("system:nodes", "system:authenticated"), Map.of()),
                "kubelet/v" + settings.kubeletVersion() + ".0 (linux/amd64) kubernetes/kdra");
        node.replaceKubelet(new SimulatedKubelet(settings, kubeletClient, runtime, kubeletHost), kubeletClient);
    }

    /**
     * Upgrades or downgrades the whole cluster to Kubernetes {@code version} in place, as upstream's upgrade/downgrade
     * spec replaces a kind cluster's binaries: the kubelets stop (their containers keep running), then the scheduler
     * and the controllers, then the API server; the API server restarts as the new version over the same stored
     * objects (see {@link ApiServer.Builder#restartOf}), then the controllers and the scheduler, then each node's
     * kubelet as the new version over the same directories and checkpoint, which wipes the node's ResourceSlices as
     * every kubelet start does, so that the drivers publish them again. Every component gets the feature gates given
     * to the builder over the new version's defaults. A kubelet a test had stopped is replaced but stays stopped.
     * Returns when every started node is Ready again.
     *
     * @throws IllegalArgumentException when kdra does not know the version or the builder's feature gates are not
     *     valid at it; nothing is stopped then
     */
    public synchronized void switchVersion(String version) {
        if (closed) {
            throw new IllegalStateException("the cluster is closed");
        }
        KubernetesVersion target = KubernetesVersion.parse(version);
        ClusterConfig switched = config.withVersion(target, FeatureGates.parse(target, featureGatesFlag));
        LOG.info("switching the cluster from Kubernetes {} to {}", config.kubernetesVersion(), target);
        Instant begin = Instant.now();
        List<ClusterNode> wereRunning = nodes().stream().filter(ClusterNode::isKubeletRunning).toList();
        nodes().forEach(ClusterNode::stopKubelet);
        List<RuntimeException> failures = new ArrayList<>();
        stopControlPlane(failures);
        if (!failures.isEmpty()) {
            throw failures.get(0);
        }
        ApiServer previous = apiServer;
        previous.close();
        apiServer = startApiServer(switched, previous);
        config = switched;
        startControlPlane();
        for (ClusterNode node : nodes()) {
            KubeletConfig old = node.kubeletConfig();
            installKubelet(node, new KubeletConfig(old.nodeName(), old.rootDirectory(), old.labels(), old.capacity(),
                    switched.kubeletVersion(), switched.featureGates(), old.timing(), old.serverPort()),
                    node.runtime());
        }
        startKubelets(wereRunning, node -> {});
        LOG.info("cluster switched to Kubernetes {} in {} ms", target, Duration.between(begin, Instant.now()).toMillis());
    }

    private static ApiServer startApiServer(ClusterConfig config, ApiServer predecessor) {
        ApiServer.Builder server = ApiServer.builder()
                .config(ApiServerConfig.defaults().withTls(config.tls())
                        .withKubernetesVersion(config.kubernetesVersion().toString())
                        .withFeatureGates(config.featureGates()))
                .celChecker(CelSelectorCompiler.expressionChecker(config.featureGates()))
                .componentListener();
        if (predecessor != null) {
            server.restartOf(predecessor);
        }
        return server.build().start();
    }

    /** The API server's URL, {@code https://127.0.0.1:<port>} unless TLS is off. */
    public String url() {
        return apiServer.url();
    }

    public ApiServer apiServer() {
        return apiServer;
    }

    /** A cluster-admin client; closed with the cluster. */
    public KubernetesClient adminClient() {
        return admin;
    }

    /**
     * A new client acting as {@code user} (closed with the cluster), e.g. for a spec that checks what a node-bound
     * identity may do.
     */
    public KubernetesClient client(UserInfo user) {
        return client(user, "kdra");
    }

    /**
     * @param userAgent the component's name, which the API server records as the field manager of its writes
     */
    private KubernetesClient client(UserInfo user, String userAgent) {
        String token = user == null ? apiServer.adminToken() : apiServer.issueToken(user);
        // Every client built here lives in this process: it talks to the API server's plain loopback listener, and
        // the TLS of the https port is left to clients from outside (docs/cluster.md, "The components' transport").
        String url = apiServer.componentUrl();
        ConfigBuilder config = new ConfigBuilder(Config.empty()).withMasterUrl(url).withOauthToken(token)
                .withNamespace("default").withUserAgent(userAgent).withRequestRetryBackoffLimit(0)
                // a fabric8 informer whose first list times out never retries; a loaded 2-core machine can take long
                .withRequestTimeout((int) COMPONENT_REQUEST_TIMEOUT.toMillis());
        String ca = apiServer.caCertificatePem();
        if (ca != null && url.startsWith("https:")) {
            config.withCaCertData(Base64.getEncoder().encodeToString(ca.getBytes(StandardCharsets.UTF_8)));
        }
        return clients.client(config.build());
    }

    /** Writes a kubeconfig for the admin identity, for kubectl and other clients. */
    public Path writeKubeconfig(Path file) throws IOException {
        return apiServer.writeKubeconfig(file);
    }

    /** The nodes in the order they were configured. */
    public List<ClusterNode> nodes() {
        synchronized (nodes) {
            return List.copyOf(nodes.values());
        }
    }

    public ClusterNode node(String name) {
        ClusterNode node = nodes.get(name);
        if (node == null) {
            throw new IllegalArgumentException("no node " + name + " in this cluster; nodes: " + nodes.keySet());
        }
        return node;
    }

    public ClusterConfig config() {
        return config;
    }

    /** The directory holding every node's root directory ({@code <base>/1}, {@code <base>/2}, ...). */
    public Path baseDirectory() {
        return baseDirectory;
    }

    /** How long {@link Builder#start()} took, from the API server's start to the last node Ready. */
    public Duration startTime() {
        return startTime;
    }

    /**
     * Stops the kubelets (killing their containers), the scheduler, the controllers and the API server; a second call
     * does nothing.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        List<RuntimeException> failures = new ArrayList<>();
        for (ClusterNode node : nodes()) {
            run(failures, node::close);
        }
        if (kubeletHost != null) {
            run(failures, kubeletHost::close);
        }
        stopControlPlane(failures);
        run(failures, runtimeTimers::shutdownNow);
        run(failures, outputPumps::shutdownNow);
        run(failures, clients::close);
        run(failures, apiServer::close);
        if (config.baseDirectory() == null) {
            run(failures, () -> Directories.deleteRecursively(baseDirectory));
        }
        if (!failures.isEmpty()) {
            RuntimeException first = failures.get(0);
            failures.subList(1, failures.size()).forEach(first::addSuppressed);
            throw first;
        }
    }

    private static void run(List<RuntimeException> failures, Runnable step) {
        try {
            step.run();
        } catch (RuntimeException e) {
            failures.add(e);
        }
    }

    private static ThreadFactory daemon(String name) {
        AtomicInteger number = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, name + "-" + number.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }

    private static UserInfo user(String name) {
        return new UserInfo(name, "", List.of("system:authenticated"), Map.of());
    }

    /** Collects the cluster's settings; {@link #start()} brings it up and returns when every node is Ready. */
    public static final class Builder {
        private final List<NodeSpec> nodes = new ArrayList<>();
        private int nodeCount = 1;
        private KubernetesVersion kubernetesVersion = KubernetesVersion.parse("1.34");
        private KubernetesVersion kubeletVersion;
        private String featureGates = "";
        private Timing timing = Timing.FAST;
        private RuntimeKind runtime = RuntimeKind.PROCESS;
        private CgroupMode cgroups = CgroupMode.AUTO;
        private Path baseDirectory;
        private boolean tls = true;
        private Consumer<String> progress = line -> {};

        private Builder() {}

        /** Nodes {@code node-1} ... {@code node-<count>}, unless {@link #node(NodeSpec)} names them. */
        public Builder nodes(int count) {
            if (count < 1) {
                throw new IllegalArgumentException("a cluster needs at least one node, got " + count);
            }
            this.nodeCount = count;
            return this;
        }

        /** Adds a node with its own name and labels; once any is added, {@link #nodes(int)} is ignored. */
        public Builder node(NodeSpec node) {
            nodes.add(Objects.requireNonNull(node, "node"));
            return this;
        }

        /** The version the API server reports and whose feature-gate defaults apply (default 1.34). */
        public Builder kubernetesVersion(String version) {
            this.kubernetesVersion = KubernetesVersion.parse(version);
            return this;
        }

        /** The kubelets' version (default: the Kubernetes version); it picks the DRA gRPC service. */
        public Builder kubeletVersion(String version) {
            this.kubeletVersion = KubernetesVersion.parse(version);
            return this;
        }

        /** Feature gates as kube's {@code --feature-gates} takes them: {@code A=true,B=false}. */
        public Builder featureGates(String spec) {
            this.featureGates = Objects.requireNonNull(spec, "spec");
            return this;
        }

        public Builder timing(Timing timing) {
            this.timing = Objects.requireNonNull(timing, "timing");
            return this;
        }

        public Builder runtime(RuntimeKind runtime) {
            this.runtime = Objects.requireNonNull(runtime, "runtime");
            return this;
        }

        /**
         * Whether pods' and containers' cgroups are the kernel's (default {@link CgroupMode#AUTO}: where the process
         * runtime can make them).
         */
        public Builder cgroups(CgroupMode cgroups) {
            this.cgroups = Objects.requireNonNull(cgroups, "cgroups");
            return this;
        }

        /**
         * Where the node directories go (kept on close). By default a new {@code /tmp/kdra-XXXXXX}, short enough for
         * the 108-byte limit of Unix socket paths, removed on close.
         */
        public Builder baseDirectory(Path directory) {
            this.baseDirectory = directory;
            return this;
        }

        /** Serve https (default) or plain http. kubectl sends a bearer token only over https. */
        public Builder tls(boolean tls) {
            this.tls = tls;
            return this;
        }

        /**
         * Told what is up as {@link #start()} goes on, for a user watching it: {@code API server <url>},
         * {@code scheduler and controllers running}, {@code node <name> Ready}; called from any thread.
         */
        public Builder progress(Consumer<String> progress) {
            this.progress = Objects.requireNonNull(progress, "progress");
            return this;
        }

        public ClusterConfig config() {
            List<NodeSpec> specs = new ArrayList<>(nodes);
            if (specs.isEmpty()) {
                for (int i = 1; i <= nodeCount; i++) {
                    specs.add(NodeSpec.named("node-" + i));
                }
            }
            KubernetesVersion kubelet = kubeletVersion == null ? kubernetesVersion : kubeletVersion;
            return new ClusterConfig(specs, kubernetesVersion, kubelet,
                    FeatureGates.parse(kubernetesVersion, featureGates), timing, runtime, cgroups, baseDirectory,
                    tls);
        }

        public EmbeddedCluster start() {
            ClusterConfig config = config();
            Instant begin = Instant.now();
            Path base;
            try {
                base = config.baseDirectory() == null ? Directories.createShortTemporary()
                        : Files.createDirectories(config.baseDirectory());
            } catch (IOException e) {
                throw new UncheckedIOException("cannot create the cluster's base directory", e);
            }
            ApiServer server = startApiServer(config, null);
            progress.accept("API server " + server.url());
            EmbeddedCluster cluster = new EmbeddedCluster(config, featureGates, base, server);
            try {
                cluster.startComponents(progress);
            } catch (RuntimeException e) {
                try {
                    cluster.close();
                } catch (RuntimeException closing) {
                    e.addSuppressed(closing);
                }
                throw e;
            }
            cluster.startTime = Duration.between(begin, Instant.now());
            LOG.info("embedded cluster with {} nodes ready in {} ms", config.nodes().size(),
                    cluster.startTime.toMillis());
            return cluster;
        }
    }
}
