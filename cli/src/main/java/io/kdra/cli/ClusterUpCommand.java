package io.kdra.cli;

import io.fabric8.kubernetes.api.model.resource.v1.DeviceClassBuilder;
import io.kdra.cluster.ClusterNode;
import io.kdra.cluster.EmbeddedCluster;
import io.kdra.cluster.RuntimeKind;
import io.kdra.cluster.Timing;
import io.kdra.plugin.resourceslice.DriverResources;
import io.kdra.plugin.resourceslice.Pool;
import io.kdra.testdriver.ExamplePlugin;
import io.kdra.testdriver.DriverDevices;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code kdra cluster up}: the embedded DRA control plane with simulated nodes, by default with the test driver on
 * every node and a DeviceClass selecting its devices, until SIGINT or SIGTERM.
 */
@Command(name = "up", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Start the embedded DRA cluster: API server, scheduler, controllers and a simulated kubelet per"
                + " node, with the test driver on every node, and write a kubeconfig for it.",
                "Stays up until Ctrl-C or SIGTERM; stopping kills every container process and removes the node"
                        + " directories."})
final class ClusterUpCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Option(names = "--nodes", paramLabel = "N", defaultValue = "1",
            description = "Nodes node-1 ... node-N (default: ${DEFAULT-VALUE}).")
    private int nodes;

    @Option(names = "--kubernetes-version", paramLabel = "MAJOR.MINOR", defaultValue = "1.34",
            description = "The version the API server reports and whose feature-gate defaults apply"
                    + " (default: ${DEFAULT-VALUE}).")
    private String kubernetesVersion;

    @Option(names = "--kubelet-version", paramLabel = "MAJOR.MINOR",
            description = "The kubelets' version, which picks the DRA gRPC service they call: 1.31 v1alpha4, 1.32 and"
                    + " 1.33 v1beta1, 1.34+ v1 or v1beta1 (default: the Kubernetes version).")
    private String kubeletVersion;

    @Option(names = "--feature-gates", paramLabel = "A=true,B=false", defaultValue = "",
            description = "Feature gates of every component, as kube's --feature-gates.")
    private String featureGates;

    @Option(names = "--runtime", paramLabel = "process|noop", defaultValue = "process",
            description = "process: containers with a command run as local processes of this user (no isolation);"
                    + " noop: containers are Running at once and run nothing (default: ${DEFAULT-VALUE}).")
    private String runtime;

    @Option(names = "--timing", paramLabel = "fast|real-timing", defaultValue = "fast",
            description = "fast: upstream delays (slice wiping 30 s, call timeout 45 s, ...) cut short; real-timing:"
                    + " the upstream values (default: ${DEFAULT-VALUE}).")
    private String timing;

    @Option(names = "--driver", paramLabel = "NAME", defaultValue = "test-driver.cdi.k8s.io",
            description = "The test driver's name, also its DeviceClass's name and CDI vendor"
                    + " (default: ${DEFAULT-VALUE}).")
    private String driverName;

    @Option(names = "--devices-per-node", paramLabel = "N", defaultValue = "8",
            description = "Devices device-00 ... the test driver publishes in each node's pool"
                    + " (default: ${DEFAULT-VALUE}).")
    private int devicesPerNode;

    @Option(names = "--no-driver", description = "Run no driver: register your own through the printed node"
            + " directories.")
    private boolean noDriver;

    @Option(names = "--kubeconfig", paramLabel = "FILE", defaultValue = "kdra-kubeconfig",
            description = "Where to write the kubeconfig (default: ${DEFAULT-VALUE}).")
    private Path kubeconfig;

    @Option(names = "--base-dir", paramLabel = "DIR",
            description = "Where the node directories go, kept on exit (default: a new /tmp/kdra-XXXXXX, removed on"
                    + " exit). Keep it short: Unix socket paths below it must stay under 108 bytes.")
    private Path baseDirectory;

    @Override
    public Integer call() throws Exception {
        if (devicesPerNode < 0) {
            throw new ParameterException(spec.commandLine(),
                    "--devices-per-node must not be negative, got " + devicesPerNode);
        }
        EmbeddedCluster.Builder builder;
        try {
            builder = EmbeddedCluster.builder().nodes(nodes).kubernetesVersion(kubernetesVersion)
                    .featureGates(featureGates).runtime(RuntimeKind.named(runtime)).timing(Timing.named(timing))
                    .baseDirectory(baseDirectory);
            if (kubeletVersion != null) {
                builder.kubeletVersion(kubeletVersion);
            }
            builder.config();
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage(), e);
        }
        PrintWriter out = spec.commandLine().getOut();
        out.println("starting " + nodes + (nodes == 1 ? " node" : " nodes") + " ...");
        out.flush();
        EmbeddedCluster cluster = builder.start();
        List<ExamplePlugin> drivers = new ArrayList<>();
        Path written;
        try {
            if (!noDriver) {
                startDrivers(cluster, drivers);
            }
            written = cluster.writeKubeconfig(kubeconfig).toAbsolutePath();
        } catch (IOException | RuntimeException e) {
            stop(cluster, drivers);
            throw e;
        }
        printSummary(out, cluster, written);
        UntilStopped.await(out, "kdra-cluster-stop", () -> {
            stop(cluster, drivers);
            return "stopped; removed the node directories";
        });
        return 0;
    }

    private void startDrivers(EmbeddedCluster cluster, List<ExamplePlugin> drivers) throws IOException {
        cluster.adminClient().resource(new DeviceClassBuilder().withNewMetadata().withName(driverName).endMetadata()
                .withNewSpec().addNewSelector().withNewCel()
                .withExpression("device.driver == \"" + driverName + "\"").endCel().endSelector().endSpec()
                .build()).serverSideApply();
        for (ClusterNode node : cluster.nodes()) {
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
        }
    }

    private void printSummary(PrintWriter out, EmbeddedCluster cluster, Path written) {
        var config = cluster.config();
        out.printf("kdra cluster up: %d %s Ready in %.1f s (Kubernetes %s, kubelet %s, runtime %s, timing %s)%n",
                config.nodes().size(), config.nodes().size() == 1 ? "node" : "nodes",
                cluster.startTime().toMillis() / 1000.0, config.kubernetesVersion(), config.kubeletVersion(),
                config.runtime().cliName(), timing);
        out.println("API server: " + cluster.url());
        out.println("kubeconfig: " + written);
        out.println("  export KUBECONFIG=" + written);
        for (ClusterNode node : cluster.nodes()) {
            out.println("node " + node.name() + ":");
            out.println("  plugin registry: " + node.pluginsRegistryDirectory());
            out.println("  plugins:         " + node.pluginsDirectory());
            out.println("  CDI:             " + node.cdiDirectory());
        }
        if (!noDriver) {
            out.println("driver " + driverName + ": " + devicesPerNode + " devices on each node; DeviceClass "
                    + driverName + " selects them");
        }
    }

    private static void stop(EmbeddedCluster cluster, List<ExamplePlugin> drivers) {
        drivers.forEach(ExamplePlugin::stop);
        cluster.close();
    }
}
