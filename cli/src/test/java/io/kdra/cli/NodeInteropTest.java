package io.kdra.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A kubelet written in another language: a Node.js script with {@code @grpc/grpc-js}, loading the kubelet-api
 * {@code .proto} files, registers with the standalone driver and calls every DRA and health method under its full
 * upstream name on every served version. Skipped when node or npm is missing or the npm packages cannot be installed.
 */
class NodeInteropTest {

    private static final Path NODE_SOURCES = Path.of("src/test/node");
    private static final Path NODE_PROJECT = Path.of("target/node-interop");
    private static final Path PROTOS = Path.of("../kubelet-api/src/main/protobuf").toAbsolutePath().normalize();
    private static final long INSTALL_MINUTES = 5;

    @TempDir(factory = ShortDirs.class)
    Path dir;

    /** Runs a command in a directory; the result holds the exit code and combined output, or -1 if it cannot run. */
    private record Run(int code, String output) {
        static Run of(Path directory, long timeoutSeconds, String... command) throws InterruptedException {
            try {
                Path log = Files.createTempFile("kd-run", ".log");
                try {
                    Process process = new ProcessBuilder(command).directory(directory.toFile())
                            .redirectErrorStream(true).redirectOutput(log.toFile()).start();
                    if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                        process.destroyForcibly();
                        return new Run(-1, String.join(" ", command) + " timed out after " + timeoutSeconds + " s");
                    }
                    return new Run(process.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
                } finally {
                    Files.deleteIfExists(log);
                }
            } catch (IOException e) {
                return new Run(-1, String.join(" ", command) + ": " + e.getMessage());
            }
        }
    }

    @BeforeAll
    static void installNodePackages() throws Exception {
        Path cwd = Path.of(".").toAbsolutePath();
        assumeTrue(Run.of(cwd, 60, "node", "--version").code() == 0, "node is not installed");
        assumeTrue(Run.of(cwd, 60, "npm", "--version").code() == 0, "npm is not installed");
        Files.createDirectories(NODE_PROJECT);
        Path installedLock = NODE_PROJECT.resolve("package-lock.json");
        if (Files.exists(installedLock) && Files.mismatch(installedLock, NODE_SOURCES.resolve("package-lock.json")) != -1) {
            ShortDirs.delete(NODE_PROJECT.resolve("node_modules"));
        }
        for (String file : List.of("package.json", "package-lock.json", "interop.js")) {
            Files.copy(NODE_SOURCES.resolve(file), NODE_PROJECT.resolve(file), StandardCopyOption.REPLACE_EXISTING);
        }
        if (!Files.isDirectory(NODE_PROJECT.resolve("node_modules/@grpc/grpc-js"))) {
            Run install = Run.of(NODE_PROJECT, TimeUnit.MINUTES.toSeconds(INSTALL_MINUTES),
                    "npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--fetch-retries=1", "--fetch-timeout=30000");
            assumeTrue(install.code() == 0, () -> "npm ci failed (offline?):\n" + install.output());
        }
    }

    @Test
    void nodeGrpcClientRegistersAndCallsEveryMethodOfEveryServedVersion() throws Exception {
        try (DemoCluster cluster = new DemoCluster(dir);
                KdraProcess driver = StandaloneDriver.start(dir, cluster.kubeconfig, "--node-v1alpha4")) {
            Path registrationSocket = Path.of(driver.valueOf("registration socket: "));

            Run client = Run.of(NODE_PROJECT, KdraProcess.PATIENCE.toSeconds(), "node", "interop.js",
                    registrationSocket.toString(), PROTOS.toString(), "demo", "claim", cluster.claimUid());

            assertThat(client.code()).as("node interop.js output:\n%s\ndriver stderr:\n%s", client.output(),
                    driver.stderr()).isZero();
            List<String> calledMethods = new ArrayList<>();
            client.output().lines().filter(line -> line.startsWith("{\"method\":\"")).forEach(line -> {
                assertThat(line).contains("\"ok\":true");
                calledMethods.add(line.substring("{\"method\":\"".length(), line.indexOf('"', 11)));
            });
            assertThat(calledMethods).containsExactly(
                    "/pluginregistration.Registration/GetInfo",
                    "/pluginregistration.Registration/NotifyRegistrationStatus",
                    "/k8s.io.kubelet.pkg.apis.dra.v1.DRAPlugin/NodePrepareResources",
                    "/k8s.io.kubelet.pkg.apis.dra.v1.DRAPlugin/NodeUnprepareResources",
                    "/k8s.io.kubelet.pkg.apis.dra.v1beta1.DRAPlugin/NodePrepareResources",
                    "/k8s.io.kubelet.pkg.apis.dra.v1beta1.DRAPlugin/NodeUnprepareResources",
                    "/v1alpha3.Node/NodePrepareResources",
                    "/v1alpha3.Node/NodeUnprepareResources",
                    "/v1.DRAResourceHealth/NodeWatchResources",
                    "/v1beta1.DRAResourceHealth/NodeWatchResources",
                    "/v1alpha1.DRAResourceHealth/NodeWatchResources");
            try (Stream<Path> cdiFiles = Files.list(dir.resolve("cdi"))) {
                assertThat(cdiFiles).as("every prepare was undone").isEmpty();
            }
            assertThat(driver.terminate()).isZero();
        }
    }
}
