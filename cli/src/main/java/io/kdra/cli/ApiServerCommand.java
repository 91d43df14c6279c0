package io.kdra.cli;

import io.kdra.allocator.cel.CelSelectorCompiler;
import io.kdra.allocator.cel.SelectorCompileException;
import io.kdra.allocator.cel.SelectorCompiler;
import io.kdra.apiserver.ApiServer;
import io.kdra.apiserver.ApiServerConfig;
import io.kdra.apiserver.validation.ExpressionChecker;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code kdra cluster apiserver}: the in-memory API server alone, until interrupted. */
@Command(name = "apiserver", mixinStandardHelpOptions = true,
        description = {"Start the in-memory Kubernetes API server on 127.0.0.1 and write a kubeconfig for it.",
                "CEL selectors of DRA objects are compiled with the allocator's CEL environment when written."})
final class ApiServerCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

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
            description = "The Kubernetes version /version reports (default: ${DEFAULT-VALUE}).")
    private String kubernetesVersion;

    @Override
    public Integer call() throws Exception {
        ApiServerConfig config = ApiServerConfig.defaults().withPort(port).withTls(tls)
                .withKubernetesVersion(kubernetesVersion);
        ApiServer server = ApiServer.builder().config(config).celChecker(celChecker()).build().start();
        Path written;
        try {
            written = server.writeKubeconfig(kubeconfig).toAbsolutePath();
        } catch (IOException | RuntimeException e) {
            server.close();
            throw e;
        }
        PrintWriter out = spec.commandLine().getOut();
        out.println("kdra API server listening on " + server.url());
        out.println("kubeconfig: " + written);
        out.println("  export KUBECONFIG=" + written);
        UntilStopped.await(out, "kdra-apiserver-stop", () -> {
            server.close();
            return "stopped";
        });
        return 0;
    }

    /**
     * The allocator's CEL environment as the API server's selector check, so that a selector the allocator could not
     * compile is rejected when the object is written, as kube-apiserver does. Validation runs with the DRA feature
     * gates of the emulated release on, DRAConsumableCapacity included.
     */
    static ExpressionChecker celChecker() {
        SelectorCompiler compiler = CelSelectorCompiler.create(
                CelSelectorCompiler.Options.defaults().withConsumableCapacity(true));
        return expression -> {
            try {
                compiler.compile(expression);
                return Optional.empty();
            } catch (SelectorCompileException e) {
                return Optional.of(e.getMessage());
            }
        };
    }
}
