package io.kdra.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClassBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplateBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.ExecWatch;
import io.kdra.plugin.resourceslice.DriverResources;
import io.kdra.plugin.resourceslice.Pool;
import io.kdra.testdriver.DriverDevices;
import io.kdra.testdriver.ExamplePlugin;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The assembled control plane, end to end: a pod with a claim from a template is scheduled, its claim generated,
 * allocated and prepared by the test driver over real gRPC, and its container runs as a process with the driver's CDI
 * environment, seen through {@code pods/exec} and {@code pods/log}.
 */
class EmbeddedClusterTest {

    private static final String DRIVER = "test-driver.cdi.k8s.io";
    private static final Duration WAIT = Duration.ofSeconds(60);

    private static EmbeddedCluster cluster;
    private static KubernetesClient admin;
    private static final List<ExamplePlugin> drivers = new ArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        cluster = EmbeddedCluster.builder().nodes(2).start();
        admin = cluster.adminClient();
        for (ClusterNode node : cluster.nodes()) {
            drivers.add(ExamplePlugin.builder(DRIVER, node.cdiDirectory())
                    .nodeName(node.name())
                    .kubernetesClient(node.driverClient("kube-system", "test-driver"))
                    .driverResources(DriverResources.of(node.name(), Pool.ofDevices(DriverDevices.numbered(2))))
                    .pluginOptions(plugin -> plugin.registrarDirectory(node.pluginsRegistryDirectory())
                            .pluginDataDirectory(node.pluginsDirectory().resolve(DRIVER)))
                    .start());
        }
        admin.resource(new DeviceClassBuilder().withNewMetadata().withName(DRIVER).endMetadata()
                .withNewSpec().addNewSelector().withNewCel().withExpression("device.driver == \"" + DRIVER + "\"")
                .endCel().endSelector().endSpec().build()).create();
    }

    @AfterAll
    static void stop() {
        drivers.forEach(ExamplePlugin::stop);
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void nodesAreReadyWithTheirKubeletEndpoints() {
        assertThat(admin.nodes().list().getItems()).extracting(n -> n.getMetadata().getName())
                .containsExactly("node-1", "node-2");
        for (Node node : admin.nodes().list().getItems()) {
            assertThat(node.getStatus().getConditions()).anySatisfy(c -> {
                assertThat(c.getType()).isEqualTo("Ready");
                assertThat(c.getStatus()).isEqualTo("True");
            });
            assertThat(node.getStatus().getDaemonEndpoints().getKubeletEndpoint().getPort())
                    .isEqualTo(cluster.node(node.getMetadata().getName()).kubeletPort());
        }
        await().atMost(WAIT).until(() -> admin.resources(ResourceSlice.class).list().getItems().size() == 2);
    }

    @Test
    void podWithATemplateClaimRunsWithTheDriversCdiEnvironment() throws Exception {
        String namespace = namespace("template");
        admin.resource(new ResourceClaimTemplateBuilder().withNewMetadata().withName("gpu").withNamespace(namespace)
                .endMetadata().withNewSpec().withNewSpec().withNewDevices().addNewRequest().withName("my-request")
                .withNewExactly().withDeviceClassName(DRIVER).endExactly().endRequest().addNewConfig()
                .withNewOpaque().withDriver(DRIVER).withParameters(Map.of("a", "b")).endOpaque().endConfig()
                .endDevices().endSpec().endSpec().build()).create();
        Pod pod = admin.resource(new PodBuilder().withNewMetadata().withName("tester").withNamespace(namespace)
                .endMetadata().withNewSpec().addNewResourceClaim().withName("my-inline-claim")
                .withResourceClaimTemplateName("gpu").endResourceClaim()
                .addNewContainer().withName("ctr").withImage("busybox")
                .withCommand("sh", "-c", "echo started; exec sleep 3600")
                .withNewResources().addNewClaim().withName("my-inline-claim").endClaim().endResources()
                .endContainer().endSpec().build()).create();

        await().atMost(WAIT).until(() -> "Running".equals(phase(namespace, "tester")));
        Pod running = admin.pods().inNamespace(namespace).withName("tester").get();
        String claimName = running.getStatus().getResourceClaimStatuses().get(0).getResourceClaimName();
        assertThat(claimName).startsWith("tester-my-inline-claim-");
        ResourceClaim claim = admin.resources(ResourceClaim.class).inNamespace(namespace).withName(claimName).get();
        assertThat(claim.getStatus().getAllocation().getDevices().getResults()).singleElement()
                .satisfies(result -> assertThat(result.getPool()).isEqualTo(running.getSpec().getNodeName()));
        assertThat(claim.getStatus().getReservedFor()).extracting(r -> r.getUid())
                .containsExactly(pod.getMetadata().getUid());
        assertThat(claim.getMetadata().getFinalizers()).contains("resource.kubernetes.io/delete-protection");

        String env = exec(namespace, "tester", "env");
        assertThat(env).contains("user_a=b", "claim_" + claimName.replace('-', '_') + "_my_request=true");
        assertThat(admin.pods().inNamespace(namespace).withName("tester").getLog()).contains("started");

        admin.pods().inNamespace(namespace).withName("tester").delete();
        await().atMost(WAIT).until(() -> admin.pods().inNamespace(namespace).withName("tester").get() == null);
        await().atMost(WAIT).until(() -> admin.resources(ResourceClaim.class).inNamespace(namespace)
                .withName(claimName).get() == null);
        String node = running.getSpec().getNodeName();
        assertThat(Files.list(cluster.node(node).cdiDirectory()).toList()).isEmpty();
    }

    @Test
    void closeRemovesTheNodeDirectoriesAndStopsEverything() throws Exception {
        List<String> progress = new CopyOnWriteArrayList<>();
        try (EmbeddedCluster other = EmbeddedCluster.builder().nodes(1).runtime(RuntimeKind.NOOP)
                .progress(progress::add).start()) {
            assertThat(progress).containsExactly("API server " + other.url(), "scheduler and controllers running",
                    "node node-1 Ready");
            assertThat(other.node("node-1").rootDirectory()).startsWith(other.baseDirectory());
            assertThat(other.baseDirectory().toString().length()).isLessThanOrEqualTo("/tmp/kdra-xxxxxx".length());
            other.close();
            assertThat(other.baseDirectory()).doesNotExist();
        }
    }

    private static String namespace(String prefix) {
        String name = prefix + "-" + System.nanoTime() % 100_000;
        admin.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(name).endMetadata().build())
                .create();
        return name;
    }

    private static String phase(String namespace, String name) {
        Pod pod = admin.pods().inNamespace(namespace).withName(name).get();
        return pod == null || pod.getStatus() == null ? null : pod.getStatus().getPhase();
    }

    private static String exec(String namespace, String pod, String... command) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (ExecWatch watch = admin.pods().inNamespace(namespace).withName(pod).writingOutput(out)
                .exec(command)) {
            watch.exitCode().get(WAIT.toSeconds(), TimeUnit.SECONDS);
        }
        return out.toString(StandardCharsets.UTF_8);
    }
}
