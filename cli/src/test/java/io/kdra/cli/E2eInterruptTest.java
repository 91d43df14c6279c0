package io.kdra.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kdra.cluster.ClusterNode;
import io.kdra.cluster.EmbeddedCluster;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kdra e2e --kubeconfig} stopped with Ctrl-C while a spec's driver runs behind its proxy pods: before the JVM
 * ends, what the running spec created on the cluster, which outlives the run, is removed.
 */
class E2eInterruptTest {

    private static final Duration PATIENCE = Duration.ofMinutes(2);

    @Test
    @Timeout(300)
    void anInterruptedRunLeavesNothingOnTheCluster(@TempDir(factory = ShortDirs.class) Path directory)
            throws Exception {
        try (EmbeddedCluster cluster = EmbeddedCluster.builder().nodes(1).tls(false).start()) {
            Path kubeconfig = cluster.writeKubeconfig(directory.resolve("kubeconfig"));
            KubernetesClient admin = cluster.adminClient();
            ClusterNode node = cluster.nodes().get(0);
            String log;
            try (KdraProcess run = KdraProcess.start(directory.resolve("stderr"), List.of("e2e", "-v",
                    "--kubeconfig", kubeconfig.toString(),
                    "--focus", "kubelet \\[Feature:DynamicResourceAllocation\\] must"))) {
                Awaitility.await("a spec's driver registered through its proxy pod").atMost(PATIENCE)
                        .pollInterval(Duration.ofMillis(100))
                        .until(() -> !node.registeredPlugins().isEmpty() && !sockets(node).isEmpty());

                run.interrupt(PATIENCE);

                log = run.stderr();
                assertThat(log).contains("the run was interrupted", "the interrupted run's specs are "
                        + "cleaned up");
            }
            Awaitility.await("the spec's namespace gone").atMost(PATIENCE).pollInterval(Duration.ofMillis(200))
                    .until(() -> admin.namespaces().withLabel("e2e-framework").list().getItems().isEmpty());
            assertThat(admin.rbac().clusterRoles().list().getItems())
                    .noneMatch(role -> role.getMetadata().getName().endsWith("-kubelet-plugin"));
            assertThat(admin.rbac().clusterRoleBindings().list().getItems())
                    .noneMatch(binding -> binding.getMetadata().getName().endsWith("-kubelet-plugin"));
            assertThat(admin.resources(ValidatingAdmissionPolicy.class).list().getItems()).isEmpty();
            assertThat(admin.apps().replicaSets().inAnyNamespace().list().getItems()).isEmpty();
            assertThat(sockets(node)).as("the proxies' sockets on the node; the run's log:\n" + log).isEmpty();
        }
    }

    private static List<Path> sockets(ClusterNode node) throws IOException {
        List<Path> sockets = new ArrayList<>();
        for (Path directory : List.of(node.pluginsRegistryDirectory(), node.pluginsDirectory())) {
            if (Files.isDirectory(directory)) {
                try (Stream<Path> files = Files.walk(directory)) {
                    files.filter(file -> file.getFileName().toString().endsWith(".sock")).forEach(sockets::add);
                }
            }
        }
        return sockets;
    }
}
