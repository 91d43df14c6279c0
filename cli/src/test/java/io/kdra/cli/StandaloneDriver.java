package io.kdra.cli;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code kdra driver kubelet-plugin} in its own JVM for node {@code node-1}, with its directories under one short
 * directory: {@code reg}, {@code data} and {@code cdi}.
 */
final class StandaloneDriver {

    private StandaloneDriver() {
    }

    /** Starts the driver with the given kubeconfig and further flags; its stderr goes to {@code driver.err}. */
    static KdraProcess start(Path dir, Path kubeconfig, String... flags) throws IOException {
        List<String> args = new ArrayList<>(List.of("driver", "kubelet-plugin",
                "--node-name", "node-1", "--kubeconfig", kubeconfig.toString(),
                "--plugin-registration-path", dir.resolve("reg").toString(),
                "--datadir", dir.resolve("data").toString(),
                "--cdi-dir", dir.resolve("cdi").toString()));
        args.addAll(List.of(flags));
        return KdraProcess.start(dir.resolve("driver.err"), args);
    }
}
