package io.kdra.cli;

import io.fabric8.kubernetes.api.model.resource.v1.DeviceClassBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.kdra.cluster.CgroupMode;
import io.kdra.cluster.ClusterNode;
import io.kdra.cluster.EmbeddedCluster;
import io.kdra.cluster.RuntimeKind;
import io.kdra.cluster.Timing;
import io.kdra.kube.FeatureGates;
import io.kdra.kube.KubernetesVersion;
import io.kdra.plugin.resourceslice.DriverResources;
import io.kdra.plugin.resourceslice.Pool;
import io.kdra.testdriver.DriverDevices;
import io.kdra.testdriver.ExamplePlugin;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code kdra cluster up}: the embedded DRA control plane with simulated nodes, by default with the test driver on
 * every node and a DeviceClass selecting its devices, until Ctrl-C, SIGTERM or a hang-up.
 */
@Command(name = "up", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Start the embedded DRA cluster: API server, scheduler, controllers and a simulated kubelet per"
                + " node, by default with the test driver on every node and a DeviceClass of the same name selecting"
                + " its devices. Prints the kubeconfig path and each node's directories once everything is ready.",
                "Stays up until Ctrl-C or SIGTERM, then stops the drivers, kills every container process, removes"
                        + " the temporary node directories and exits 0.",
                "Containers of the process runtime are ordinary processes of your user: there is no isolation."},
        footer = {"", "Exit codes: 0 stopped on request, 1 could not start, 2 bad flags (nothing was started)."})
final class ClusterUpCommand implements Callable<Integer> {

    /** Unix socket paths hold at most 107 bytes (108 with the terminating NUL). */
    private static final int MAX_SOCKET_PATH = 107;
    /** What {@link EmbeddedCluster} creates when no base directory is given: {@code /tmp/kdra-XXXXXX}. */
    private static final String DEFAULT_BASE_SHAPE = "/tmp/kdra-xxxxxx";
    /** A ResourceSlice holds at most 128 devices, and the test driver publishes one slice per node. */
    private static final int MAX_DEVICES_PER_NODE = 128;
    private static final Duration DRIVER_PATIENCE = Duration.ofSeconds(60);

    @Spec
    private CommandSpec spec;

    @Option(names = "--nodes", paramLabel = "N", defaultValue = "1",
            description = "Nodes node-1 ... node-N, each with a simulated kubelet (default: ${DEFAULT-VALUE}).")
    private int nodes;

    @Option(names = "--kubernetes-version", paramLabel = "MAJOR.MINOR", defaultValue = "1.34",
            description = "The version the API server reports and whose feature-gate defaults apply, 1.31 to 1.37"
                    + " (default: ${DEFAULT-VALUE}).")
    private String kubernetesVersion;

    @Option(names = "--kubelet-version", paramLabel = "MAJOR.MINOR",
            description = "The kubelets' version, 1.31 up to the Kubernetes version; it picks the DRA gRPC service they"
                    + " call: 1.31 v1alpha4, 1.32 and 1.33 v1beta1, 1.34 and later v1 or v1beta1 (default: the"
                    + " Kubernetes version).")
    private String kubeletVersion;

    @Option(names = "--feature-gates", paramLabel = "A=true,B=false", defaultValue = "",
            description = "Feature gates of every component over the defaults of --kubernetes-version, as kube's"
                    + " --feature-gates. Known gates: ${COMPLETION-CANDIDATES}.",
            completionCandidates = ApiServerCommand.KnownGates.class)
    private String featureGates;

    @Option(names = "--runtime", paramLabel = "process|noop", defaultValue = "process",
            description = "process: a container with a command runs it as a local process of your user, with the pod's"
                    + " and the CDI environment (no isolation); noop: containers are Running at once and run nothing"
                    + " (default: ${DEFAULT-VALUE}).")
    private String runtime;

    @Option(names = "--cgroups", paramLabel = "auto|simulated|kernel", defaultValue = "auto",
            description = "kernel: pods' and containers' cgroups are cgroup v2 groups of this machine with the"
                    + " kubelet's CPU, memory and hugepage values, and container processes run in them (needs root and"
                    + " a writable cgroup v2 hierarchy offering cpu, memory and hugetlb); simulated: directories"
                    + " holding the values, which containers read at /sys/fs/cgroup; auto: kernel where possible with"
                    + " the process runtime (default: ${DEFAULT-VALUE}).")
    private String cgroups;

    @Option(names = "--timing", paramLabel = "fast|real-timing", defaultValue = "fast",
            description = "fast: upstream delays (slice wiping 30 s, call timeout 45 s, ...) cut short; real-timing:"
                    + " the upstream values (default: ${DEFAULT-VALUE}).")
    private String timing;

    @Option(names = "--driver", paramLabel = "NAME", defaultValue = "test-driver.cdi.k8s.io",
            description = "The test driver's name, also its DeviceClass's name and CDI vendor.%nDefault:"
                    + " ${DEFAULT-VALUE}.")
    private String driverName;

    @Option(names = "--devices-per-node", paramLabel = "N", defaultValue = "8",
            description = "Devices device-00 ... the test driver publishes in each node's pool, 0 to "
                    + MAX_DEVICES_PER_NODE + " (default: ${DEFAULT-VALUE}).")
    private int devicesPerNode;

    @Option(names = "--no-driver", description = "Run no driver and create no DeviceClass: register your own driver"
            + " through the printed node directories.")
    private boolean noDriver;

    @Option(names = "--kubeconfig", paramLabel = "FILE", defaultValue = "kdra-kubeconfig",
            description = "Where to write the admin kubeconfig, replacing the file (default: ${DEFAULT-VALUE}).")
    private Path kubeconfig;

    @Option(names = "--base-dir", paramLabel = "DIR",
            description = "Where the node directories go, kept on exit (default: a new /tmp/kdra-XXXXXX, removed on"
                    + " exit). Keep it short: Unix socket paths below it must stay under 108 bytes.")
    private Path baseDirectory;

    @Mixin
    private Verbosity verbosity;

    @Override
    public Integer call() throws Exception {
        EmbeddedCluster.Builder builder = checkedBuilder();
        checkKubeconfig();
        boolean baseCreated = createBaseDirectory();
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try (UntilStopped stop = UntilStopped.install("kdra-cluster-stop", err)) {
            var config = builder.config();
            out.printf("starting %d %s (Kubernetes %s, kubelet %s, runtime %s, timing %s) ...%n", config.nodes().size(),
                    config.nodes().size() == 1 ? "node" : "nodes", config.kubernetesVersion(), config.kubeletVersion(),
                    config.runtime().cliName(), timing);
            out.flush();
            Running running;
            try {
                running = start(builder.progress(line -> {
                    out.println("  " + line);
                    out.flush();
                }), out);
            } catch (RuntimeException e) {
                if (baseCreated) {
                    deleteRecursively(baseDirectory);
                }
                if (e instanceof ParameterException) {
                    throw e;
                }
                err.println("kdra cluster up: " + (e instanceof StartFailure ? e.getMessage() : "could not start: " + e)
                        + (Verbosity.isOn() ? "" : "; run it again with -v to see the components' logs"));
                err.flush();
                return 1;
            }
            if (!stop.isRequested()) {
                printSummary(out, running);
                out.println("Press Ctrl-C or send SIGTERM to stop.");
                out.flush();
                stop.await();
            }
            out.println("stopping ...");
            out.flush();
            running.stop();
            stop.stopped();
            out.println(baseDirectory == null ? "stopped; removed the node directories"
                    : "stopped; the node directories stay in " + running.cluster.baseDirectory());
            out.flush();
            return 0;
        }
    }

    /** The builder for the flags, each checked: a bad one is a usage error naming the flag, before anything starts. */
    private EmbeddedCluster.Builder checkedBuilder() {
        if (nodes < 1) {
            throw usage("--nodes must be at least 1, got " + nodes);
        }
        if (devicesPerNode < 0 || devicesPerNode > MAX_DEVICES_PER_NODE) {
            throw usage("--devices-per-node must be 0 to " + MAX_DEVICES_PER_NODE + " (the devices of a node go into"
                    + " one ResourceSlice, which holds at most " + MAX_DEVICES_PER_NODE + "), got " + devicesPerNode);
        }
        EmbeddedCluster.Builder builder = EmbeddedCluster.builder().nodes(nodes).baseDirectory(baseDirectory);
        KubernetesVersion kubernetes = supportedVersion("--kubernetes-version", kubernetesVersion);
        builder.kubernetesVersion(kubernetesVersion);
        if (kubeletVersion != null) {
            KubernetesVersion kubelet = supportedVersion("--kubelet-version", kubeletVersion);
            if (kubelet.compareTo(kubernetes) > 0) {
                throw usage("--kubelet-version " + kubelet + " is newer than the control plane (" + kubernetes
                        + "); kubelets may not be newer than the API server: raise --kubernetes-version or lower"
                        + " --kubelet-version");
            }
            builder.kubeletVersion(kubeletVersion);
        }
        try {
            builder.featureGates(featureGates).config();
        } catch (IllegalArgumentException e) {
            throw usage("--feature-gates: " + e.getMessage());
        }
        try {
            builder.runtime(RuntimeKind.named(runtime));
        } catch (IllegalArgumentException e) {
            throw usage("--runtime: " + e.getMessage());
        }
        try {
            builder.cgroups(CgroupMode.named(cgroups)).config();
        } catch (IllegalArgumentException e) {
            throw usage("--cgroups: " + e.getMessage());
        }
        try {
            builder.timing(Timing.named(timing));
        } catch (IllegalArgumentException e) {
            throw usage("--timing: " + e.getMessage());
        }
        checkSocketPaths();
        return builder;
    }

    private KubernetesVersion supportedVersion(String flag, String text) {
        try {
            KubernetesVersion version = KubernetesVersion.parse(text);
            FeatureGates.defaults(version);
            return version;
        } catch (IllegalArgumentException e) {
            throw usage(flag + " " + text + ": " + e.getMessage());
        }
    }

    /** The drivers' sockets in the node directories must fit a Unix socket address. */
    private void checkSocketPaths() {
        String base = baseDirectory == null ? DEFAULT_BASE_SHAPE : baseDirectory.toAbsolutePath().toString();
        String node = base + "/" + nodes;
        for (String socket : List.of(node + "/plugins_registry/" + driverName + "-reg.sock",
                node + "/plugins/" + driverName + "/dra.sock")) {
            int length = socket.getBytes(StandardCharsets.UTF_8).length;
            if (length > MAX_SOCKET_PATH) {
                throw usage((baseDirectory == null ? "--driver " + driverName : "--base-dir " + baseDirectory)
                        + ": too long for the driver's sockets: " + socket + " has " + length + " bytes, Unix sockets"
                        + " allow " + MAX_SOCKET_PATH + "; choose a shorter " + (baseDirectory == null ? "name"
                        : "directory"));
            }
        }
    }

    private void checkKubeconfig() {
        Path parent = kubeconfig.toAbsolutePath().getParent();
        if (Files.isDirectory(kubeconfig) || !Files.isDirectory(parent) || !Files.isWritable(parent)
                || Files.exists(kubeconfig) && !Files.isWritable(kubeconfig)) {
            throw usage("--kubeconfig " + kubeconfig + ": cannot write it" + (Files.isDirectory(parent) ? ""
                    : " (no directory " + parent + ")") + "; give a file in a writable directory");
        }
    }

    /** Creates the given base directory; returns whether it did, so that a failed start can remove it again. */
    private boolean createBaseDirectory() {
        if (baseDirectory == null) {
            return false;
        }
        boolean existed = Files.isDirectory(baseDirectory);
        try {
            Files.createDirectories(baseDirectory);
        } catch (IOException e) {
            throw usage("--base-dir " + baseDirectory + ": cannot create it (" + e.getClass().getSimpleName() + ": "
                    + e.getMessage() + "); give a writable directory");
        }
        if (!Files.isWritable(baseDirectory)) {
            throw usage("--base-dir " + baseDirectory + ": not writable; give a writable directory");
        }
        return !existed;
    }

    /** The cluster and its drivers, started, with the kubeconfig written. */
    private Running start(EmbeddedCluster.Builder builder, PrintWriter out) {
        EmbeddedCluster cluster;
        try {
            cluster = builder.start();
        } catch (RuntimeException e) {
            throw new StartFailure("the cluster did not start: " + e.getMessage(), e);
        }
        List<ExamplePlugin> drivers = new ArrayList<>();
        Running running = new Running(cluster, drivers);
        try {
            if (!noDriver) {
                startDrivers(cluster, drivers);
                awaitSlices(cluster);
                out.println("  driver " + driverName + ": " + devicesPerNode + " devices on each node, DeviceClass "
                        + driverName + " selects them");
            }
            running.kubeconfig = cluster.writeKubeconfig(kubeconfig).toAbsolutePath();
            return running;
        } catch (IOException e) {
            running.stop();
            throw new StartFailure("--kubeconfig " + kubeconfig + ": cannot write it: " + e, e);
        } catch (RuntimeException e) {
            running.stop();
            throw e;
        }
    }

    private void startDrivers(EmbeddedCluster cluster, List<ExamplePlugin> drivers) {
        for (ClusterNode node : cluster.nodes()) {
            try {
                drivers.add(ExamplePlugin.builder(driverName, node.cdiDirectory())
                        .nodeName(node.name())
                        .kubernetesClient(node.driverClient("kube-system", "kdra-test-driver"))
                        .driverResources(DriverResources.of(node.name(),
                                Pool.ofDevices(DriverDevices.numbered(devicesPerNode))))
                        .pluginOptions(plugin -> plugin
                                .registrarDirectory(node.pluginsRegistryDirectory())
                                .pluginDataDirectory(node.pluginsDirectory().resolve(driverName))
                                .nodeV1alpha4(true)
                                .healthV1(true).healthV1beta1(true).healthV1alpha1(true))
                        .start());
            } catch (IllegalArgumentException e) {
                throw usage("--driver " + driverName + ": " + e.getMessage());
            } catch (IOException e) {
                throw new StartFailure("the test driver did not start on node " + node.name() + ": " + e, e);
            }
        }
        cluster.adminClient().resource(new DeviceClassBuilder().withNewMetadata().withName(driverName).endMetadata()
                .withNewSpec().addNewSelector().withNewCel()
                .withExpression("device.driver == \"" + driverName + "\"").endCel().endSelector().endSpec()
                .build()).serverSideApply();
    }

    /** Waits until every node's kubelet has registered the driver and its pool is published. */
    private void awaitSlices(EmbeddedCluster cluster) {
        Set<String> nodeNames = cluster.nodes().stream().map(ClusterNode::name).collect(Collectors.toSet());
        try {
            cluster.adminClient().resources(ResourceSlice.class).withField("spec.driver", driverName)
                    .informOnCondition(slices -> slices.stream().map(slice -> slice.getSpec().getNodeName())
                            .filter(Objects::nonNull).collect(Collectors.toSet()).containsAll(nodeNames))
                    .get(DRIVER_PATIENCE.toSeconds(), TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            throw new StartFailure("the test driver's ResourceSlices did not appear on every node within "
                    + DRIVER_PATIENCE.toSeconds() + " s", e);
        } catch (ExecutionException e) {
            throw new StartFailure("watching the test driver's ResourceSlices failed: " + e.getCause(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StartFailure("interrupted while waiting for the test driver's ResourceSlices", e);
        }
    }

    private void printSummary(PrintWriter out, Running running) {
        EmbeddedCluster cluster = running.cluster;
        int count = cluster.nodes().size();
        out.printf("kdra cluster up: %d %s Ready in %.1f s; API server %s%n", count, count == 1 ? "node" : "nodes",
                cluster.startTime().toMillis() / 1000.0, cluster.url());
        for (ClusterNode node : cluster.nodes()) {
            out.println("node " + node.name() + ":");
            out.println("  plugin registry: " + node.pluginsRegistryDirectory());
            out.println("  plugins:         " + node.pluginsDirectory());
            out.println("  CDI:             " + node.cdiDirectory());
            out.println("  cgroups:         " + node.cgroupsDirectory()
                    + (node.kernelCgroups() ? " (the kernel's)" : " (simulated)"));
        }
        if (noDriver) {
            ClusterNode first = cluster.nodes().get(0);
            out.println("no driver runs (--no-driver); start yours against a node's directories, e.g.:");
            out.println("  ./kdra driver kubelet-plugin --drivername NAME --node-name " + first.name()
                    + " --kubeconfig " + running.kubeconfig + " --plugin-registration-path "
                    + first.pluginsRegistryDirectory() + " --datadir " + first.pluginsDirectory() + " --cdi-dir "
                    + first.cdiDirectory());
        }
        out.println("kubeconfig: " + running.kubeconfig);
        out.println("  export KUBECONFIG=" + running.kubeconfig);
    }

    private ParameterException usage(String message) {
        return new ParameterException(spec.commandLine(), message);
    }

    private static void deleteRecursively(Path directory) throws IOException {
        try (Stream<Path> paths = Files.walk(directory)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }

    /** The start failed for a reason other than a flag; everything started is stopped again. */
    private static final class StartFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        StartFailure(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** What {@code cluster up} runs until it is stopped. */
    private static final class Running {
        final EmbeddedCluster cluster;
        final List<ExamplePlugin> drivers;
        Path kubeconfig;

        Running(EmbeddedCluster cluster, List<ExamplePlugin> drivers) {
            this.cluster = cluster;
            this.drivers = drivers;
        }

        /** Drivers first, so that they remove their sockets before the node directories go. */
        void stop() {
            drivers.forEach(ExamplePlugin::stop);
            cluster.close();
        }
    }
}
