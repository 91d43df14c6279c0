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

    private final ClusterConfig config;
    private final Path baseDirectory;
    private final ApiServer apiServer;
    private final KubeClients clients;
    private final KubernetesClient admin;
    private final Map<String, ClusterNode> nodes = Collections.synchronizedMap(new LinkedHashMap<>());
    private final List<AutoCloseable> stopOrder = new ArrayList<>();
    private final ScheduledExecutorService runtimeTimers =
            Executors.newSingleThreadScheduledExecutor(daemon("kdra-runtime-timer"));
    private final ExecutorService outputPumps = Executors.newCachedThreadPool(daemon("kdra-container-output"));
    private KubeletHost kubeletHost;
    private Duration startTime;
    private boolean closed;

    private EmbeddedCluster(ClusterConfig config, Path baseDirectory, ApiServer apiServer) {
        this.config = config;
        this.baseDirectory = baseDirectory;
        this.apiServer = apiServer;
        this.clients = KubeClients.create();
        this.admin = client(null, "kdra");
    }

    public static Builder builder() {
        return new Builder();
    }

    private void startComponents(Consumer<String> progress) {
        FeatureGates gates = config.featureGates();
        KubeControllerManager controllers = KubeControllerManager.builder(client(user("system:kube-controller-manager"), "kube-controller-manager"))
                .timing(config.timing()).featureGates(gates).build();
        stopOrder.add(controllers);
        controllers.start();
        StructuredAllocator allocator = new StructuredAllocator(
                CelSelectorCompiler.create(CelSelectorCompiler.Options.from(gates)), AllocatorFeatures.from(gates));
        Scheduler scheduler = new Scheduler(client(user("system:kube-scheduler"), "kube-scheduler"), allocator, config.timing(),
                SCHEDULER_NAME, gates.enabled(FeatureGates.DRA_EXTENDED_RESOURCE));
        if (gates.enabled(FeatureGates.GENERIC_WORKLOAD) && gates.enabled(FeatureGates.DRA_WORKLOAD_RESOURCE_CLAIMS)) {
            scheduler.withPodGroupClaims();
        }
        stopOrder.add(scheduler);
        scheduler.start();
        progress.accept("scheduler and controllers running");
        kubeletHost = KubeletHost.create();
        List<CompletableFuture<Void>> starting = new ArrayList<>();
        int index = 0;
        for (NodeSpec spec : config.nodes()) {
            ClusterNode node = createNode(spec, baseDirectory.resolve(Integer.toString(++index)));
            nodes.put(spec.name(), node);
            starting.add(CompletableFuture.runAsync(() -> {
                node.startKubelet();
                progress.accept("node " + spec.name() + " Ready");
            }));
        }
        try {
            CompletableFuture.allOf(starting.toArray(CompletableFuture[]::new)).join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException cause ? cause : e;
        }
    }

    private ClusterNode createNode(NodeSpec spec, Path root) {
        ContainerRuntime runtime = config.runtime().create(root, runtimeTimers, outputPumps);
        KubeletServer server = null;
        try {
            KubernetesClient kubeletClient = client(new UserInfo("system:node:" + spec.name(), "",
                    List.of("system:nodes", "system:authenticated"), Map.of()),
                    "kubelet/v" + config.kubeletVersion() + ".0 (linux/amd64) kubernetes/kdra");
            SimulatedKubelet[] kubelet = new SimulatedKubelet[1];
            server = new KubeletServer(clients.vertx(), runtime, () -> kubelet[0].metrics());
            KubeletConfig kubeletConfig = new KubeletConfig(spec.name(), root, spec.labels(),
                    KubeletConfig.DEFAULT_CAPACITY, config.kubeletVersion(), config.featureGates(), config.timing(),
                    server.start());
            kubelet[0] = new SimulatedKubelet(kubeletConfig, kubeletClient, runtime, kubeletHost);
            return new ClusterNode(spec.name(), kubelet[0], runtime, server, this::client);
        } catch (RuntimeException e) {
            if (server != null) {
                server.close();
            }
            runtime.close();
            throw e;
        }
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
        ConfigBuilder config = new ConfigBuilder(Config.empty()).withMasterUrl(apiServer.url()).withOauthToken(token)
                .withNamespace("default").withUserAgent(userAgent).withRequestRetryBackoffLimit(0)
                // a fabric8 informer whose first list times out never retries; a loaded 2-core machine can take long
                .withRequestTimeout((int) COMPONENT_REQUEST_TIMEOUT.toMillis());
        String ca = apiServer.caCertificatePem();
        if (ca != null) {
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
        for (int i = stopOrder.size() - 1; i >= 0; i--) {
            AutoCloseable component = stopOrder.get(i);
            run(failures, () -> {
                try {
                    component.close();
                } catch (Exception e) {
                    throw new IllegalStateException("closing " + component.getClass().getSimpleName() + " failed", e);
                }
            });
        }
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
                    FeatureGates.parse(kubernetesVersion, featureGates), timing, runtime, baseDirectory, tls);
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
            ApiServer server = ApiServer.builder()
                    .config(ApiServerConfig.defaults().withTls(config.tls())
                            .withKubernetesVersion(config.kubernetesVersion().toString())
                            .withFeatureGates(config.featureGates()))
                    .celChecker(CelSelectorCompiler.expressionChecker(config.featureGates()))
                    .build().start();
            progress.accept("API server " + server.url());
            EmbeddedCluster cluster = new EmbeddedCluster(config, base, server);
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
