package io.kdra.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code kdra cluster up} as a new user meets it: started as a separate JVM, driven with the real kubectl through the
 * kubeconfig it prints, stopped with SIGTERM; bad flags in-process.
 */
class ClusterUpCommandTest {

    private static final String DRIVER = "test-driver.cdi.k8s.io";

    /** The README's DRA pod: a claim template with an opaque config for the test driver, and a pod using it. */
    private static final String DRA_POD = """
            apiVersion: resource.k8s.io/v1
            kind: ResourceClaimTemplate
            metadata:
              name: gpu
              namespace: demo
            spec:
              spec:
                devices:
                  requests:
                  - name: gpu
                    exactly:
                      deviceClassName: %1$s
                  config:
                  - opaque:
                      driver: %1$s
                      parameters:
                        color: blue
            ---
            apiVersion: v1
            kind: Pod
            metadata:
              name: gpu-pod
              namespace: demo
            spec:
              resourceClaims:
              - name: gpu
                resourceClaimTemplateName: gpu
              containers:
              - name: app
                image: busybox
                command: ["sh", "-c", "env | grep -E '^(user|claim)_'; exec sleep 3600"]
                resources:
                  claims:
                  - name: gpu
            """;

    @TempDir(factory = ShortDirs.class)
    Path dir;

    @Test
    void aUsersKubectlSessionRunsADraPodAndSigtermRemovesEverything() throws Exception {
        assumeTrue(Kubectl.onPath(), "kubectl is not on the PATH");
        Path kubeconfig = dir.resolve("kubeconfig");
        try (KdraProcess cluster = KdraProcess.start(dir.resolve("up.err"),
                List.of("cluster", "up", "--nodes", "2", "--kubeconfig", kubeconfig.toString()))) {
            assertThat(cluster.valueOf("starting ")).isEqualTo(
                    "2 nodes (Kubernetes 1.34, kubelet 1.34, runtime process, timing fast) ...");
            assertThat(cluster.valueOf("  API server ")).startsWith("https://127.0.0.1:");
            // the kubelets start with the scheduler and controllers, so their lines come in any order
            assertThat(List.of(cluster.nextLine(), cluster.nextLine(), cluster.nextLine()))
                    .containsExactlyInAnyOrder("  node node-1 Ready", "  node node-2 Ready",
                            "  scheduler and controllers running");
            assertThat(cluster.valueOf("  driver ")).isEqualTo(DRIVER + ": 8 devices on each node, DeviceClass "
                    + DRIVER + " selects them");
            assertThat(cluster.valueOf("kdra cluster up: ")).startsWith("2 nodes Ready in ");
            List<NodeDirectories> nodes = List.of(NodeDirectories.read(cluster, "node-1"),
                    NodeDirectories.read(cluster, "node-2"));
            assertThat(Path.of(cluster.valueOf("kubeconfig: "))).isEqualTo(kubeconfig);
            assertThat(cluster.valueOf("  export KUBECONFIG=")).isEqualTo(kubeconfig.toString());
            Kubectl kubectl = new Kubectl(kubeconfig, dir);

            assertThat(kubectl.run("get", "nodes").lines().skip(1)).allSatisfy(line -> assertThat(line)
                    .containsPattern("^node-[12] +Ready ")).hasSize(2);
            assertThat(kubectl.run("get", "deviceclasses", "-o", "name")).isEqualTo("deviceclass.resource.k8s.io/"
                    + DRIVER + "\n");
            assertThat(kubectl.run("create", "namespace", "demo")).isEqualTo("namespace/demo created\n");
            assertThat(kubectl.run("-n", "demo", "create", "configmap", "greeting", "--from-literal=greeting=hello"))
                    .isEqualTo("configmap/greeting created\n");
            assertThat(kubectl.run("-n", "demo", "run", "hello", "--image=busybox", "--restart=Never", "--command",
                    "--", "sh", "-c", "echo hello from $HOSTNAME; exec sleep 3600")).isEqualTo("pod/hello created\n");
            assertThat(kubectl.run("apply", "-f", write("dra-pod.yaml", DRA_POD.formatted(DRIVER)))).isEqualTo("""
                    resourceclaimtemplate.resource.k8s.io/gpu created
                    pod/gpu-pod created
                    """);
            assertThat(kubectl.run("apply", "-f", write("settings.yaml", settings("fast"))))
                    .isEqualTo("configmap/settings created\n");
            assertThat(kubectl.run("apply", "--server-side", "-f", write("settings.yaml", settings("slow"))))
                    .isEqualTo("configmap/settings serverside-applied\n");
            assertThat(kubectl.run("-n", "demo", "get", "configmap", "settings", "-o", "jsonpath={.data.mode}"))
                    .isEqualTo("slow");

            assertThat(kubectl.run("-n", "demo", "wait", "--for=condition=Ready", "pod/hello", "pod/gpu-pod",
                    "--timeout=60s")).isEqualTo("pod/hello condition met\npod/gpu-pod condition met\n");
            assertThat(kubectl.run("-n", "demo", "logs", "hello")).isEqualTo("hello from hello\n");
            String claim = kubectl.run("-n", "demo", "get", "pod", "gpu-pod", "-o",
                    "jsonpath={.status.resourceClaimStatuses[0].resourceClaimName}");
            assertThat(claim).startsWith("gpu-pod-gpu-");
            String claimVariable = "claim_" + claim.replace('-', '_') + "_gpu=true";
            assertThat(kubectl.run("-n", "demo", "exec", "gpu-pod", "--", "env").lines())
                    .contains("user_color=blue", claimVariable, "HOSTNAME=gpu-pod");
            assertThat(kubectl.run("-n", "demo", "logs", "gpu-pod").lines())
                    .containsExactlyInAnyOrder("user_color=blue", claimVariable);
            assertThat(kubectl.run("-n", "demo", "describe", "pod", "gpu-pod"))
                    .containsPattern("Normal +Scheduled +.* +default-scheduler +Successfully assigned demo/gpu-pod to"
                            + " node-[12]")
                    // kubectl 1.35 shows the event's field path before its message
                    .containsPattern("Normal +Created +.* +kubelet +(spec\\.containers\\{app\\}: )?Created container: app")
                    .containsPattern("Normal +Started +.* +kubelet +(spec\\.containers\\{app\\}: )?Started container app");
            List<ProcessHandle> containers = cluster.descendants();
            assertThat(containers).as("the two pods' container processes").hasSizeGreaterThanOrEqualTo(2);

            // kubectl 1.35 adds "from demo namespace"
            assertThat(kubectl.run("-n", "demo", "delete", "pod", "gpu-pod"))
                    .matches("pod \"gpu-pod\" deleted( from demo namespace)?\n");
            await().atMost(KdraProcess.PATIENCE).untilAsserted(() -> assertThat(
                    kubectl.run("-n", "demo", "get", "resourceclaims", "-o", "name")).as("the generated claim").isEmpty());
            for (NodeDirectories node : nodes) {
                await().atMost(KdraProcess.PATIENCE).untilAsserted(() -> assertThat(filesIn(node.cdi()))
                        .as("the claim's CDI spec, removed when the claim is unprepared").isEmpty());
            }

            assertThat(cluster.terminate()).as("exit code after SIGTERM; stderr:\n%s", cluster.stderr()).isZero();
            assertThat(cluster.valueOf("stopping")).isEqualTo(" ...");
            assertThat(cluster.valueOf("stopped; ")).isEqualTo("removed the node directories");
            for (NodeDirectories node : nodes) {
                assertThat(node.root()).doesNotExist();
            }
            assertThat(containers).allSatisfy(process -> assertThat(process.isAlive())
                    .as("container process %s", process.info()).isFalse());
            assertThat(cluster.stderr()).as("only warnings and errors are logged without -v").doesNotContain(" INFO ");
        }
    }

    @Test
    void anotherDriverRegistersThroughThePrintedNodeDirectories() throws Exception {
        assumeTrue(Kubectl.onPath(), "kubectl is not on the PATH");
        Path kubeconfig = dir.resolve("kubeconfig");
        try (KdraProcess cluster = KdraProcess.start(dir.resolve("up.err"), List.of("cluster", "up", "--no-driver",
                "--runtime", "noop", "--verbose", "--kubeconfig", kubeconfig.toString()))) {
            NodeDirectories node = NodeDirectories.read(cluster, "node-1");
            assertThat(cluster.valueOf("no driver runs")).isEqualTo(
                    " (--no-driver); start yours against a node's directories, e.g.:");
            assertThat(cluster.valueOf("  ./kdra driver kubelet-plugin ")).isEqualTo("--drivername NAME"
                    + " --node-name node-1 --kubeconfig " + kubeconfig + " --plugin-registration-path "
                    + node.registry() + " --datadir " + node.plugins() + " --cdi-dir " + node.cdi());
            assertThat(Path.of(cluster.valueOf("kubeconfig: "))).isEqualTo(kubeconfig);
            Kubectl kubectl = new Kubectl(kubeconfig, dir);
            assertThat(kubectl.run("get", "deviceclasses,resourceslices", "-o", "name")).isEmpty();

            try (KdraProcess driver = KdraProcess.start(dir.resolve("driver.err"), List.of("driver", "kubelet-plugin",
                    "--drivername", "gpu.example.com", "--node-name", "node-1", "--kubeconfig", kubeconfig.toString(),
                    "--plugin-registration-path", node.registry().toString(), "--datadir", node.plugins().toString(),
                    "--cdi-dir", node.cdi().toString(), "--num-devices", "2"))) {
                await().atMost(KdraProcess.PATIENCE).untilAsserted(() -> assertThat(kubectl.run("get",
                        "resourceslices", "-o", "jsonpath={.items[*].spec.devices[*].name}"))
                        .isEqualTo("device-00 device-01"));
                kubectl.run("create", "namespace", "demo");
                kubectl.run("apply", "-f", write("class.yaml", """
                        apiVersion: resource.k8s.io/v1
                        kind: DeviceClass
                        metadata:
                          name: gpu.example.com
                        spec:
                          selectors:
                          - cel:
                              expression: device.driver == "gpu.example.com"
                        """));
                kubectl.run("apply", "-f", write("dra-pod.yaml", DRA_POD.formatted("gpu.example.com")));
                kubectl.run("-n", "demo", "wait", "--for=condition=Ready", "pod/gpu-pod", "--timeout=60s");

                assertThat(kubectl.run("-n", "demo", "get", "resourceclaims", "-o",
                        "jsonpath={.items[0].status.allocation.devices.results[0].driver}"))
                        .isEqualTo("gpu.example.com");
                assertThat(kubectl.run("-n", "demo", "exec", "gpu-pod", "--", "env").lines())
                        .contains("user_color=blue").anyMatch(line -> line.matches("claim_gpu_pod_gpu_\\w+_gpu=true"));
                assertThat(filesIn(node.cdi())).as("the driver wrote the claim's CDI spec into the node's CDI dir")
                        .singleElement().satisfies(file -> assertThat(file.getFileName().toString())
                                .startsWith("gpu.example.com-"));

                assertThat(driver.terminate()).as("driver stderr:\n%s", driver.stderr()).isZero();
            }
            assertThat(cluster.terminate()).as("stderr:\n%s", cluster.stderr()).isZero();
            assertThat(node.root()).doesNotExist();
            assertThat(cluster.stderr()).as("-v logs the components' INFO lines")
                    .contains("INFO io.kdra.cluster.kubelet.DraPluginManager - node node-1: registered DRA plugin"
                            + " gpu.example.com");
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            --nodes 0                          | --nodes must be at least 1, got 0
            --nodes two                        | Invalid value for option '--nodes': 'two' is not an int
            --feature-gates Foo=true           | --feature-gates: unrecognized feature gate: Foo
            --feature-gates DRAAdminAccess     | --feature-gates: missing bool value for DRAAdminAccess
            --kubernetes-version 1.40          | --kubernetes-version 1.40: emulated Kubernetes version 1.40 is not supported: kdra knows the feature gates of 1.31 to 1.37
            --kubelet-version 1.20             | --kubelet-version 1.20: emulated Kubernetes version 1.20 is not supported: kdra knows the feature gates of 1.31 to 1.37
            --kubelet-version latest           | --kubelet-version latest: Kubernetes version must be <major>.<minor>, e.g. 1.34, got "latest"
            --kubelet-version 1.35             | --kubelet-version 1.35 is newer than the control plane (1.34); kubelets may not be newer than the API server: raise --kubernetes-version or lower --kubelet-version
            --runtime docker                   | --runtime: unknown runtime "docker"; use process or noop
            --timing slow                      | --timing: unknown timing profile "slow"; use fast or real-timing
            --cgroups v1                       | --cgroups: unknown cgroup mode "v1"; use auto, simulated or kernel
            --runtime noop --cgroups kernel    | --cgroups: kernel cgroups need the process runtime: the noop runtime runs no container process to place in one
            --devices-per-node 129             | --devices-per-node must be 0 to 128 (the devices of a node go into one ResourceSlice, which holds at most 128), got 129
            --driver a-driver-name-of-sixty-three-characters-is-allowed.examples.com | --driver a-driver-name-of-sixty-three-characters-is-allowed.examples.com: too long for the driver's sockets: /tmp/kdra-xxxxxx/1/plugins_registry/a-driver-name-of-sixty-three-characters-is-allowed.examples.com-reg.sock has 108 bytes, Unix sockets allow 107; choose a shorter name
            --bogus                            | Unknown option: '--bogus'
            """)
    void aBadFlagIsOneLineNamingItAndNothingStarts(String flags, String message) {
        Result result = runInProcess(flags.split(" "));

        assertThat(result.code()).as(result.err()).isEqualTo(2);
        assertThat(result.err()).isEqualTo(message + " (see 'kdra cluster up --help')\n");
        assertThat(result.out()).isEmpty();
    }

    @Test
    void anUnusableBaseDirectoryOrKubeconfigIsAUsageErrorAndNothingIsLeft() throws IOException {
        Path file = Files.writeString(dir.resolve("file"), "");
        Result base = runInProcess("--base-dir", file.resolve("base").toString());
        assertThat(base.code()).isEqualTo(2);
        assertThat(base.err()).startsWith("--base-dir " + file.resolve("base") + ": cannot create it (")
                .endsWith("); give a writable directory (see 'kdra cluster up --help')\n");

        Result kubeconfig = runInProcess("--base-dir", dir.resolve("base").toString(), "--kubeconfig",
                dir.resolve("missing/kubeconfig").toString());
        assertThat(kubeconfig.code()).isEqualTo(2);
        assertThat(kubeconfig.err()).isEqualTo("--kubeconfig " + dir.resolve("missing/kubeconfig") + ": cannot write"
                + " it (no directory " + dir.resolve("missing") + "); give a file in a writable directory (see 'kdra"
                + " cluster up --help')\n");
        assertThat(filesIn(dir)).containsExactly(file);
    }

    @Test
    void aFailureAfterTheStartStopsEverythingAndRemovesTheDirectoriesItCreated() throws Exception {
        Path base = dir.resolve("base");
        try (KdraProcess cluster = KdraProcess.start(dir.resolve("up.err"), List.of("cluster", "up", "--runtime",
                "noop", "--driver", "Not_Valid", "--base-dir", base.toString(), "--kubeconfig",
                dir.resolve("kubeconfig").toString()))) {
            assertThat(cluster.waitFor()).as(cluster.stderr()).isEqualTo(2);
            assertThat(cluster.stderr().lines().toList()).as("the components' warnings, then the command's error")
                    .last().isEqualTo("--driver Not_Valid: driver name \"Not_Valid\" must be a lowercase DNS subdomain"
                            + " of at most 63 characters (see 'kdra cluster up --help')");
        }
        assertThat(filesIn(dir)).extracting(path -> path.getFileName().toString()).containsExactly("up.err");
    }

    @Test
    void helpDescribesEveryFlag() {
        StringWriter out = new StringWriter();
        int code = Kdra.commandLine().setOut(new PrintWriter(out)).execute("cluster", "up", "--help");

        assertThat(code).isZero();
        assertThat(out.toString()).contains("--nodes=N", "--kubernetes-version=MAJOR.MINOR",
                "--kubelet-version=MAJOR.MINOR", "--feature-gates=A=true,B=false", "DRADeviceTaints",
                "--runtime=process|noop", "no isolation", "--cgroups=auto|simulated|kernel",
                "--timing=fast|real-timing", "--driver=NAME",
                "test-driver.cdi.k8s.io", "--devices-per-node=N", "--no-driver", "--kubeconfig=FILE",
                "--base-dir=DIR", "-v, --verbose", "-h, --help", "Exit codes: 0 stopped on request");
    }

    private static Result runInProcess(String... flags) {
        List<String> args = new ArrayList<>(List.of("cluster", "up"));
        args.addAll(List.of(flags));
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Kdra.commandLine().setOut(new PrintWriter(out)).setErr(new PrintWriter(err))
                .execute(args.toArray(String[]::new));
        return new Result(code, out.toString(), err.toString());
    }

    private record Result(int code, String out, String err) {
    }

    private String write(String name, String content) throws IOException {
        return Files.writeString(dir.resolve(name), content).toString();
    }

    private static String settings(String mode) {
        return """
                apiVersion: v1
                kind: ConfigMap
                metadata:
                  name: settings
                  namespace: demo
                data:
                  mode: %s
                """.formatted(mode);
    }

    private static List<Path> filesIn(Path directory) throws IOException {
        try (Stream<Path> files = Files.list(directory)) {
            return files.toList();
        }
    }

    /** A node's directories as {@code kdra cluster up} prints them. */
    private record NodeDirectories(Path registry, Path plugins, Path cdi) {

        static NodeDirectories read(KdraProcess cluster, String node) throws InterruptedException, IOException {
            assertThat(cluster.valueOf("node " + node + ":")).isEmpty();
            NodeDirectories directories = new NodeDirectories(Path.of(cluster.valueOf("  plugin registry: ")),
                    Path.of(cluster.valueOf("  plugins:         ")), Path.of(cluster.valueOf("  CDI:             ")));
            assertThat(List.of(directories.plugins.getParent(), directories.cdi.getParent()))
                    .containsOnly(directories.root());
            assertThat(directories.registry()).isDirectory();
            return directories;
        }

        Path root() {
            return registry.getParent();
        }
    }
}
