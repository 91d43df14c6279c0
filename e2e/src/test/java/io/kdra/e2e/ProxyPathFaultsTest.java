package io.kdra.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kdra.cluster.ClusterNode;
import io.kdra.cluster.EmbeddedCluster;
import io.kdra.framework.Builder;
import io.kdra.framework.DraSpec;
import io.kdra.framework.Driver;
import io.kdra.framework.Framework;
import io.kdra.framework.FrameworkExtension;
import io.kdra.framework.MethodInstance;
import io.kdra.framework.Nodes;
import io.kdra.framework.Resources;
import io.kdra.framework.Waits;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

/**
 * Faults of the real-cluster path itself (issue 11 E): an embedded cluster reached through its kubeconfig, with the
 * test's clients behind a relay that drops their connections or refuses their requests. The driver's path must
 * recover as upstream's {@code proxy.Listen} and exec retry do — a dropped port-forward, a proxy exec that ends and is
 * refused for a while, a proxy pod replaced by its ReplicaSet — and a spec that fails must leave nothing behind.
 */
class ProxyPathFaultsTest {

    /** What a failing scenario throws, to tell it from a real failure. */
    private static final String DELIBERATE = "deliberate failure after the driver ran";

    @TempDir
    static Path directory;
    private static EmbeddedCluster cluster;
    private static ApiServerRelay relay;

    @BeforeAll
    static void start() throws IOException {
        cluster = EmbeddedCluster.builder().nodes(1).tls(false).start();
        relay = ApiServerRelay.start(cluster.url());
        Path direct = cluster.writeKubeconfig(directory.resolve("direct-kubeconfig"));
        Files.writeString(directory.resolve("kubeconfig"), Files.readString(direct).replace(cluster.url(),
                relay.url()));
    }

    @AfterAll
    static void stop() throws IOException {
        if (relay != null) {
            relay.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    @Timeout(300)
    void theDriverRecoversFromFaultsOfThePathAndLeavesNothingBehind() throws IOException {
        SummaryGeneratingListener summary = new SummaryGeneratingListener();
        Launcher launcher = LauncherFactory.create();
        launcher.execute(LauncherDiscoveryRequestBuilder.request()
                .selectors(selectClass(Scenarios.class))
                .configurationParameter(FrameworkExtension.KUBECONFIG_PROPERTY,
                        directory.resolve("kubeconfig").toString())
                .build(), summary);
        TestExecutionSummary result = summary.getSummary();
        List<TestExecutionSummary.Failure> unexpected = result.getFailures().stream()
                .filter(failure -> !DELIBERATE.equals(failure.getException().getMessage())).toList();
        assertThat(unexpected).as(unexpected.stream()
                .map(failure -> failure.getTestIdentifier().getDisplayName() + ": " + failure.getException())
                .collect(Collectors.joining("\n"))).isEmpty();
        assertThat(result.getTestsSucceededCount()).as("scenarios passed").isEqualTo(3);
        assertThat(result.getTotalFailureCount()).as("the deliberately failing scenario failed").isEqualTo(1);

        KubernetesClient admin = cluster.adminClient();
        Waits.until("the specs' namespaces gone", Duration.ofMinutes(1))
                .until(() -> admin.namespaces().withLabel("e2e-framework").list().getItems(), List::isEmpty);
        assertThat(admin.rbac().clusterRoles().list().getItems())
                .noneMatch(role -> role.getMetadata().getName().endsWith("-kubelet-plugin"));
        assertThat(admin.rbac().clusterRoleBindings().list().getItems())
                .noneMatch(binding -> binding.getMetadata().getName().endsWith("-kubelet-plugin"));
        assertThat(admin.resources(ValidatingAdmissionPolicy.class).list().getItems()).isEmpty();
        for (ClusterNode node : cluster.nodes()) {
            assertThat(socketsIn(node.pluginsRegistryDirectory())).as("sockets left on " + node.name()).isEmpty();
            assertThat(socketsIn(node.pluginsDirectory())).as("sockets left on " + node.name()).isEmpty();
        }
    }

    private static List<Path> socketsIn(Path directory) throws IOException {
        if (!Files.isDirectory(directory)) {
            return List.of();
        }
        try (Stream<Path> files = Files.walk(directory)) {
            return files.filter(file -> file.getFileName().toString().endsWith(".sock")).toList();
        }
    }

    /** Scenarios on a driver with a network-attached pool, run through the relay's kubeconfig. */
    @DraSpec
    @DisplayName("[kdra] proxy path faults")
    static class Scenarios {

        final Framework f = Framework.create("dra");
        final Nodes nodes = Nodes.create(f, 1, 1);
        final Driver driver = Driver.create(f, nodes, Resources.networkResources(10, false));
        final Builder b = Builder.create(f, driver);

        @Test
        @DisplayName("a dropped port-forward connection: the next kubelet connection is served")
        void droppedPortForward() throws Exception {
            long prepared = podGetsPrepared(0);

            f.by("dropping every port-forward connection of the test's client");
            assertThat(relay.drop(target -> target.contains("/portforward"))).isPositive();

            podGetsPrepared(prepared);
        }

        @Test
        @DisplayName("a proxy exec that ends and is refused for a while: the driver retries and recovers")
        void failingExec() throws Exception {
            long prepared = podGetsPrepared(0);

            f.by("ending the proxies' execs and refusing new ones");
            relay.refuse(ProxyPathFaultsTest::proxyExec);
            try {
                assertThat(relay.drop(ProxyPathFaultsTest::proxyExec)).isPositive();
                // upstream's back-off: the first retry after 1-2 s, the next 2-4 s later
                Waits.until("each proxy refused twice", Duration.ofMinutes(1))
                        .until(() -> Stream.of("-reg.sock", "dra.sock").allMatch(socket -> relay.refused().stream()
                                .filter(target -> target.contains(socket)).count() >= 2));
            } finally {
                relay.stopRefusing();
            }

            podGetsPrepared(prepared);
        }

        @Test
        @DisplayName("a proxy pod replaced by its ReplicaSet: the driver follows it")
        void proxyPodReplaced() throws Exception {
            long prepared = podGetsPrepared(0);

            f.by("deleting the proxy pod");
            String old = proxyPod().getMetadata().getName();
            f.client().pods().inNamespace(f.namespace()).withName(old).delete();
            Waits.until("a new proxy pod running", Duration.ofMinutes(1))
                    .until(() -> {
                        Pod pod = proxyPod();
                        return pod != null && !pod.getMetadata().getName().equals(old);
                    });

            podGetsPrepared(prepared);
            assertThat(policy()).as("upstream's admission policy for the plugin's slices").isNotNull();
        }

        @Test
        @DisplayName("a spec that fails leaves nothing behind")
        void failingSpec() throws Exception {
            podGetsPrepared(0);
            throw new AssertionError(DELIBERATE);
        }

        /** Runs a pod with a claim and returns how often NodePrepareResources was called, more than before. */
        private long podGetsPrepared(long before) throws Exception {
            ResourceClaim claim = b.externalClaim();
            Pod pod = b.podExternal(claim.getMetadata().getName());
            b.create(claim, pod);
            b.testPod(pod);
            String node = driver.nodeNames().get(0);
            long calls = driver.callCount(new MethodInstance(node, MethodInstance.NODE_PREPARE_RESOURCES_V1))
                    + driver.callCount(new MethodInstance(node, MethodInstance.NODE_PREPARE_RESOURCES));
            assertThat(calls).as("NodePrepareResources calls").isGreaterThan(before);
            return calls;
        }

        private Pod proxyPod() {
            return f.client().pods().inNamespace(f.namespace())
                    .withLabel("app.kubernetes.io/instance", driver.name()).list().getItems().stream()
                    .filter(pod -> pod.getMetadata().getDeletionTimestamp() == null)
                    .filter(pod -> "Running".equals(pod.getStatus().getPhase()))
                    .findFirst().orElse(null);
        }

        private ValidatingAdmissionPolicy policy() {
            return f.client().resources(ValidatingAdmissionPolicy.class)
                    .withName("resourceslices-policy-dra-kubelet-plugin-" + driver.name()).get();
        }
    }

    /** The exec of a socket proxy, not of a CDI file write. */
    private static boolean proxyExec(String target) {
        return target.contains("/exec") && target.contains("hostpathplugin");
    }
}
