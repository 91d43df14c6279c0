package io.kdra.cli;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.kdra.plugin.KubeletPlugin;
import io.kdra.plugin.cdi.LocalFileOperations;
import io.kdra.plugin.metadata.MetadataVersion;
import io.kdra.plugin.resourceslice.DriverResources;
import io.kdra.plugin.resourceslice.Pool;
import io.kdra.testdriver.DriverDevices;
import io.kdra.testdriver.ExamplePlugin;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code kdra driver kubelet-plugin}: the test driver's kubelet plugin with the flags and defaults of the upstream
 * {@code dra-test-driver kubelet-plugin}, until SIGINT or SIGTERM.
 */
@Command(name = "kubelet-plugin", mixinStandardHelpOptions = true, sortOptions = false,
        description = {
            "Serve the DRA test driver's registration and DRA sockets for a kubelet and publish the node's devices"
                    + " as ResourceSlices, until SIGINT or SIGTERM; stopping removes both sockets.",
            "Not supported from upstream: --kube-api-qps, --kube-api-burst, --http-endpoint, --metrics-path,"
                    + " --pprof-path, --feature-gates and the logging flags (--vmodule, ...;"
                    + " -v takes no level here)."})
final class KubeletPluginCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Mixin
    private Verbosity verbosity;

    @Option(names = "--drivername", paramLabel = "NAME", defaultValue = "test-driver.cdi.k8s.io",
            description = "The DRA driver name, also the CDI vendor (default: ${DEFAULT-VALUE}).")
    private String driverName;

    @Option(names = "--node-name", paramLabel = "NAME", description = "The node the plugin runs on (required).")
    private String nodeName;

    @Option(names = "--kubeconfig", paramLabel = "FILE", defaultValue = "",
            description = "Kubeconfig of the API server; empty uses $KUBECONFIG, ~/.kube/config or the in-cluster"
                    + " service account.")
    private String kubeconfig;

    @Option(names = "--plugin-registration-path", paramLabel = "DIR", defaultValue = "/var/lib/kubelet/plugins_registry",
            description = "Where the kubelet looks for registration sockets (default: ${DEFAULT-VALUE}).")
    private Path registrationPath;

    @Option(names = "--datadir", paramLabel = "DIR", defaultValue = "/var/lib/kubelet/plugins",
            description = "Parent of the DRA socket directory <datadir>/<drivername> (default: ${DEFAULT-VALUE}).")
    private Path dataDirectory;

    @Option(names = "--cdi-dir", paramLabel = "DIR", defaultValue = "/var/run/cdi",
            description = "Where CDI spec files are written (default: ${DEFAULT-VALUE}).")
    private Path cdiDirectory;

    @Option(names = "--num-devices", paramLabel = "N", defaultValue = "4",
            description = "Devices device-00, device-01, ... published in pool <node-name> (default: ${DEFAULT-VALUE}).")
    private int numDevices;

    @Option(names = "--enable-device-metadata", defaultValue = "false",
            description = "Write device metadata files for prepared claims (metadata.resource.k8s.io v1beta1, then"
                    + " v1alpha1) under <datadir>/<drivername>/dra-device-metadata and mount them into the"
                    + " containers through CDI specs in --cdi-dir (default: ${DEFAULT-VALUE}).")
    private boolean enableDeviceMetadata;

    @Option(names = "--node-v1alpha4", defaultValue = "false",
            description = "kdra extension: also serve the v1alpha3.Node API of kubelets 1.31 to 1.33"
                    + " (default: ${DEFAULT-VALUE}).")
    private boolean nodeV1alpha4;

    @Override
    public Integer call() throws Exception {
        if (nodeName == null || nodeName.isEmpty()) {
            throw new ParameterException(spec.commandLine(), "--node-name not set");
        }
        if (numDevices < 0) {
            throw new ParameterException(spec.commandLine(), "--num-devices must not be negative, got " + numDevices);
        }
        if (!kubeconfig.isEmpty() && !Files.isRegularFile(Path.of(kubeconfig))) {
            throw new ParameterException(spec.commandLine(), "--kubeconfig " + kubeconfig + ": no such file");
        }
        Config config = kubeconfig.isEmpty() ? null : readKubeconfig();
        PrintWriter err = spec.commandLine().getErr();
        try {
            Files.createDirectories(cdiDirectory, PosixFilePermissions.asFileAttribute(
                    PosixFilePermissions.fromString("rwxr-x---")));
            Files.createDirectories(dataDirectory);
        } catch (IOException e) {
            err.println("cannot create directory: " + e);
            return 1;
        }
        try (UntilStopped stop = UntilStopped.install("kdra-driver-stop", err)) {
            KubernetesClient client = config == null ? new KubernetesClientBuilder().build()
                    : new KubernetesClientBuilder().withConfig(config).build();
            ExamplePlugin driver;
            try {
                driver = ExamplePlugin.builder(driverName, cdiDirectory)
                        .nodeName(nodeName)
                        .kubernetesClient(client)
                        .driverResources(DriverResources.of(nodeName,
                                Pool.ofDevices(DriverDevices.numbered(numDevices))))
                        .pluginOptions(plugin -> plugin
                                .registrarDirectory(registrationPath)
                                .pluginDataDirectory(dataDirectory.resolve(driverName))
                                .nodeV1alpha4(nodeV1alpha4)
                                .healthV1(true).healthV1beta1(true).healthV1alpha1(true)
                                .enableDeviceMetadata(enableDeviceMetadata)
                                .metadataVersions(MetadataVersion.V1BETA1, MetadataVersion.V1ALPHA1)
                                .cdiFiles(new LocalFileOperations(cdiDirectory)))
                        .start();
            } catch (IllegalArgumentException e) {
                client.close();
                throw new ParameterException(spec.commandLine(), e.getMessage(), e);
            } catch (IOException e) {
                client.close();
                err.println("cannot start the kubelet plugin: " + e);
                return 1;
            } catch (RuntimeException e) {
                client.close();
                throw e;
            }
            KubeletPlugin plugin = driver.kubeletPlugin();
            PrintWriter out = spec.commandLine().getOut();
            out.println("kdra test driver " + driverName + " on node " + nodeName + ", serving "
                    + plugin.supportedVersions());
            out.println("registration socket: " + plugin.registrationSocket());
            out.println("DRA socket: " + plugin.draSocket());
            out.println("CDI directory: " + cdiDirectory.toAbsolutePath());
            if (enableDeviceMetadata) {
                out.println("device metadata: " + plugin.draSocket().getParent().resolve("dra-device-metadata"));
            }
            out.println("publishing pool " + nodeName + " with " + numDevices + " devices");
            out.println("Press Ctrl-C or send SIGTERM to stop.");
            out.flush();
            stop.await();
            driver.stop();
            client.close();
            stop.stopped();
            out.println("stopped; removed " + plugin.registrationSocket() + " and " + plugin.draSocket());
            out.flush();
            return 0;
        }
    }

    private Config readKubeconfig() {
        try {
            return Config.fromKubeconfig(Path.of(kubeconfig).toFile());
        } catch (RuntimeException e) {
            throw new ParameterException(spec.commandLine(),
                    "--kubeconfig " + kubeconfig + ": not a kubeconfig: " + e.getMessage(), e);
        }
    }
}
