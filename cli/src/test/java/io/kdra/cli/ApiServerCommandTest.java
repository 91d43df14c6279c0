package io.kdra.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClassBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kdra.allocator.cel.CelSelectorCompiler;
import io.kdra.apiserver.ApiServer;
import io.kdra.kube.ExpressionChecker;
import io.kdra.kube.FeatureGates;
import io.kdra.kube.KubernetesVersion;
import io.kdra.kube.client.KubeClients;
import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code kdra cluster apiserver}: flags and the CEL check in-process, the run as a separate JVM stopped by SIGTERM. */
class ApiServerCommandTest {

    @TempDir(factory = ShortDirs.class)
    Path dir;

    @Test
    void helpListsEveryOption() {
        StringWriter out = new StringWriter();
        int code = Kdra.commandLine().setOut(new PrintWriter(out))
                .execute("cluster", "apiserver", "--help");
        assertThat(code).isZero();
        assertThat(out.toString()).contains("--port", "--kubeconfig", "--[no-]tls", "--kubernetes-version",
                "--feature-gates", "DRADeviceTaints");
    }

    @Test
    void badVersionIsReportedWithoutStarting() {
        StringWriter err = new StringWriter();
        int code = Kdra.commandLine().setErr(new PrintWriter(err))
                .execute("cluster", "apiserver", "--kubernetes-version", "latest");
        assertThat(code).isNotZero();
        assertThat(err.toString()).contains("kubernetesVersion must look like <major>.<minor>, e.g. 1.34, got 'latest'");
    }

    @Test
    void badFeatureGatesAreReportedWithoutStarting() {
        assertThat(run("--feature-gates", "Foo=true")).contains("--feature-gates: unrecognized feature gate: Foo");
        assertThat(run("--feature-gates", "DRAAdminAccess=maybe")).contains("--feature-gates: invalid value of "
                + "DRAAdminAccess=maybe, err: strconv.ParseBool: parsing \"maybe\": invalid syntax");
        assertThat(run("--kubernetes-version", "1.35", "--feature-gates", "DynamicResourceAllocation=false"))
                .contains("--feature-gates: cannot set feature gate DynamicResourceAllocation to false, "
                        + "feature is locked to true");
        assertThat(run("--kubernetes-version", "1.32", "--feature-gates", "DRADeviceTaints=true"))
                .contains("--feature-gates: cannot set feature gate DRADeviceTaints to true, feature is PreAlpha");
        assertThat(run("--kubernetes-version", "1.40")).contains("--kubernetes-version: emulated Kubernetes version "
                + "1.40 is not supported: kdra knows the feature gates of 1.31 to 1.37");
    }

    /** Runs {@code kdra cluster apiserver} with the arguments, expecting it to fail; returns what it printed. */
    private static String run(String... arguments) {
        StringWriter err = new StringWriter();
        List<String> command = new java.util.ArrayList<>(List.of("cluster", "apiserver"));
        command.addAll(List.of(arguments));
        int code = Kdra.commandLine().setErr(new PrintWriter(err)).execute(command.toArray(String[]::new));
        assertThat(code).isNotZero();
        return err.toString();
    }

    @Test
    void theFeatureGatesReachTheServer() throws Exception {
        try (KdraProcess apiserver = KdraProcess.start(dir.resolve("apiserver.err"), List.of("cluster", "apiserver",
                "--port", "0", "--kubeconfig", dir.resolve("kubeconfig").toString(), "--kubernetes-version", "1.36",
                "--feature-gates", "DRAExtendedResource=false"))) {
            Path kubeconfig = awaitKubeconfig(apiserver);
            try (KubeClients clients = KubeClients.create()) {
                KubernetesClient client = clients.client(Config.fromKubeconfig(kubeconfig.toFile()));
                DeviceClass created = client.resource(new DeviceClassBuilder().withNewMetadata().withName("gpu")
                        .endMetadata().withNewSpec().withExtendedResourceName("example.com/gpu").endSpec().build())
                        .create();

                assertThat(created.getSpec().getExtendedResourceName()).as("dropped: DRAExtendedResource is off")
                        .isNull();
            }
            assertStopsCleanly(apiserver);
        }
    }

    @Test
    void theServerRejectsASelectorTheAllocatorCannotCompile() throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        ExpressionChecker checker = CelSelectorCompiler.expressionChecker(FeatureGates.defaults(new KubernetesVersion(1, 34)));
        try (ApiServer server = ApiServer.builder().celChecker(checker).build().start()) {
            HttpResponse<String> bad = createDeviceClass(http, server, "bad", "device.driver ==");
            assertThat(bad.statusCode()).isEqualTo(422);
            assertThat(bad.body()).contains("DeviceClass.resource.k8s.io \\\"bad\\\" is invalid: "
                    + "spec.selectors[0].cel.expression: Invalid value: \\\"device.driver ==\\\": "
                    + "compilation failed: ERROR: ");
            assertThat(createDeviceClass(http, server, "good", "device.driver == 'gpu.example.com'").statusCode())
                    .isEqualTo(201);
        }
    }

    private static HttpResponse<String> createDeviceClass(HttpClient http, ApiServer server, String name,
            String expression) throws Exception {
        String body = """
                {"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"%s"},
                 "spec":{"selectors":[{"cel":{"expression":"%s"}}]}}""".formatted(name, expression);
        HttpRequest request = HttpRequest.newBuilder(URI.create(server.url() + "/apis/resource.k8s.io/v1/deviceclasses"))
                .header("Authorization", "Bearer " + server.adminToken()).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void theWrittenKubeconfigServesTheFabric8ClientAndSigtermStopsTheServerCleanly() throws Exception {
        try (KdraProcess apiserver = startApiServer()) {
            Path kubeconfig = awaitKubeconfig(apiserver);

            try (KubeClients clients = KubeClients.create()) {
                KubernetesClient client = clients.client(Config.fromKubeconfig(kubeconfig.toFile()));
                assertThat(client.getMasterUrl().getProtocol()).isEqualTo("https");
                client.configMaps().resource(new ConfigMapBuilder().withNewMetadata().withName("greeting")
                        .endMetadata().withData(Map.of("hello", "world")).build()).create();
                ConfigMap read = client.configMaps().inNamespace("default").withName("greeting").get();
                assertThat(read.getData()).containsExactlyEntriesOf(Map.of("hello", "world"));
                assertThat(read.getMetadata().getUid()).isNotEmpty();
            }

            assertStopsCleanly(apiserver);
        }
    }

    @Test
    void kubectlListsNamespacesWithTheWrittenKubeconfig() throws Exception {
        assumeTrue(onPath("kubectl"), "kubectl is not on the PATH");
        try (KdraProcess apiserver = startApiServer()) {
            Path kubeconfig = awaitKubeconfig(apiserver);

            Path output = dir.resolve("kubectl.out");
            // the discovery cache stays in the test's directory, not in ~/.kube/cache
            Process kubectl = new ProcessBuilder("kubectl", "--kubeconfig", kubeconfig.toString(), "--cache-dir",
                    dir.resolve("kubectl-cache").toString(), "get", "namespaces", "-o", "name")
                    .redirectErrorStream(true).redirectOutput(output.toFile()).start();
            if (!kubectl.waitFor(KdraProcess.PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
                kubectl.destroyForcibly();
                throw new AssertionError("kubectl did not end within " + KdraProcess.PATIENCE);
            }
            String printed = Files.readString(output, StandardCharsets.UTF_8);
            assertThat(kubectl.exitValue()).as(printed).isZero();
            assertThat(printed.lines()).contains("namespace/default", "namespace/kube-system");

            assertStopsCleanly(apiserver);
        }
    }

    private KdraProcess startApiServer() throws IOException {
        return KdraProcess.start(dir.resolve("apiserver.err"), List.of("cluster", "apiserver", "--port", "0",
                "--kubeconfig", dir.resolve("kubeconfig").toString()));
    }

    /** Waits for the printed kubeconfig line and checks that it names the written file. */
    private Path awaitKubeconfig(KdraProcess apiserver) throws InterruptedException, IOException {
        Path kubeconfig = Path.of(apiserver.valueOf("kubeconfig: "));
        assertThat(kubeconfig).isEqualTo(dir.resolve("kubeconfig"));
        await().atMost(KdraProcess.PATIENCE).until(() -> Files.size(kubeconfig) > 0);
        return kubeconfig;
    }

    /** SIGTERM: the command closes the server, says so and exits 0; no warning or error on stderr. */
    private static void assertStopsCleanly(KdraProcess apiserver) throws InterruptedException, IOException {
        assertThat(apiserver.terminate()).as("exit code after SIGTERM, 0 when stopped cleanly; stderr: %s",
                apiserver.stderr()).isZero();
        assertThat(apiserver.valueOf("stopped")).isEmpty();
        assertThat(apiserver.stderr()).doesNotContain("Exception", "ERROR", "WARN");
    }

    private static boolean onPath(String program) {
        String path = System.getenv().getOrDefault("PATH", "");
        return Stream.of(path.split(File.pathSeparator)).filter(entry -> !entry.isEmpty())
                .map(entry -> Path.of(entry, program)).anyMatch(Files::isExecutable);
    }
}
