package io.kdra.cli;

import io.kdra.allocator.cel.CelSelectorCompiler;
import io.kdra.apiserver.ApiServer;
import io.kdra.apiserver.ApiServerConfig;
import io.kdra.kube.FeatureGates;
import io.kdra.kube.KubernetesVersion;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code kdra cluster apiserver}: the in-memory API server alone, until interrupted. */
@Command(name = "apiserver", mixinStandardHelpOptions = true,
        description = {"Start the in-memory Kubernetes API server on 127.0.0.1 and write a kubeconfig for it.",
                "CEL selectors of DRA objects are compiled with the allocator's CEL environment when written;",
                "fields of disabled DRA features are dropped from written objects, as kube-apiserver does."})
final class ApiServerCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Mixin
    private Verbosity verbosity;

    @Option(names = "--port", paramLabel = "PORT", defaultValue = "0",
            description = "TCP port on 127.0.0.1; 0 picks a free one (default: ${DEFAULT-VALUE}).")
    private int port;

    @Option(names = "--kubeconfig", paramLabel = "FILE", defaultValue = "kdra-kubeconfig",
            description = "Where to write the kubeconfig (default: ${DEFAULT-VALUE}).")
    private Path kubeconfig;

    @Option(names = "--tls", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "Serve https with a generated certificate (default: ${DEFAULT-VALUE}). "
                    + "kubectl sends its token only over https.")
    private boolean tls;

    @Option(names = "--kubernetes-version", paramLabel = "MAJOR.MINOR", defaultValue = "1.34",
            description = "The emulated Kubernetes version: what /version reports and whose feature-gate defaults"
                    + " apply, 1.31 to 1.37 (default: ${DEFAULT-VALUE}).")
    private String kubernetesVersion;

    @Option(names = "--feature-gates", paramLabel = "A=true,B=false", defaultValue = "",
            description = "Feature gates over the defaults of --kubernetes-version, as kube-apiserver's flag, e.g."
                    + " DRADeviceTaints=true,DRAAdminAccess=false. Known gates: ${COMPLETION-CANDIDATES}.",
            completionCandidates = KnownGates.class)
    private String featureGates;

    @Override
    public Integer call() throws Exception {
        ApiServerConfig config = ApiServerConfig.defaults().withPort(port).withTls(tls)
                .withKubernetesVersion(kubernetesVersion);
        FeatureGates gates = featureGates(KubernetesVersion.parse(config.kubernetesVersion()));
        PrintWriter out = spec.commandLine().getOut();
        try (UntilStopped stop = UntilStopped.install("kdra-apiserver-stop", spec.commandLine().getErr())) {
            ApiServer server = ApiServer.builder().config(config.withFeatureGates(gates))
                    .celChecker(CelSelectorCompiler.expressionChecker(gates)).build().start();
            Path written;
            try {
                written = server.writeKubeconfig(kubeconfig).toAbsolutePath();
            } catch (IOException | RuntimeException e) {
                server.close();
                throw e;
            }
            out.println("kdra API server listening on " + server.url());
            out.println("kubeconfig: " + written);
            out.println("  export KUBECONFIG=" + written);
            out.println("Press Ctrl-C or send SIGTERM to stop.");
            out.flush();
            stop.await();
            server.close();
            stop.stopped();
            out.println("stopped");
            out.flush();
            return 0;
        }
    }

    private FeatureGates featureGates(KubernetesVersion version) {
        try {
            FeatureGates.defaults(version);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--kubernetes-version: " + e.getMessage(), e);
        }
        try {
            return FeatureGates.parse(version, featureGates);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--feature-gates: " + e.getMessage(), e);
        }
    }

    /** The gate names the help lists. */
    static final class KnownGates implements Iterable<String> {
        @Override
        public java.util.Iterator<String> iterator() {
            return FeatureGates.knownGates().iterator();
        }
    }
}
