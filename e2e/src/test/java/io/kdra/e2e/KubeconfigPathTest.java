package io.kdra.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import io.kdra.cluster.EmbeddedCluster;
import io.kdra.framework.ClusterRequirements;
import io.kdra.framework.FrameworkExtension;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.TagFilter;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

/**
 * The real-cluster path in the build: kubelet specs run against an embedded cluster reached only through its
 * kubeconfig, as {@code kdra e2e --kubeconfig} runs them against Kind. Each driver is deployed with proxy pods, its
 * sockets reach the test JVM through {@code pods/exec} and {@code pods/portforward}, and its CDI files are written
 * through exec.
 */
class KubeconfigPathTest {

    /**
     * Driver-deploying specs of dra.go's kubelet groups: registration, retry, force delete, config mapping, per-node
     * slices, driver updates (rolling and sequential) and health; {@code Slow} ones are left to the full suite.
     */
    private static final List<Class<?>> SPECS = List.of(KubeletSpecs.class, KubeletPerNodeSpecs.class,
            KubeletDriverUpdateSpecs.class, HealthSpecs.class);
    /** What those specs need of the cluster, from their tags. */
    private static final Set<String> TAGS = Set.of("KubeletMinVersion:1.37", "FeatureGate:ResourceHealthStatus");

    private static final int MIN_PASSED = 20;

    @TempDir
    static Path directory;
    private static EmbeddedCluster cluster;
    private static Path kubeconfig;

    @BeforeAll
    static void start() throws Exception {
        ClusterRequirements requirements = ClusterRequirements.forTags(TAGS);
        cluster = EmbeddedCluster.builder().nodes(requirements.nodes())
                .kubernetesVersion(requirements.kubernetesVersion().toString())
                .kubeletVersion(requirements.kubeletVersion().toString())
                .featureGates(requirements.featureGatesFlag())
                .start();
        kubeconfig = cluster.writeKubeconfig(directory.resolve("kubeconfig"));
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    @Timeout(600)
    void kubeletSpecsPassThroughProxyPods() {
        Launcher launcher = LauncherFactory.create();
        SummaryGeneratingListener summary = new SummaryGeneratingListener();
        launcher.execute(LauncherDiscoveryRequestBuilder.request()
                .selectors(SPECS.stream().map(spec -> selectClass(spec)).toList())
                .filters(TagFilter.excludeTags("Slow"))
                .configurationParameter(FrameworkExtension.KUBECONFIG_PROPERTY, kubeconfig.toString())
                .build(), summary);
        TestExecutionSummary result = summary.getSummary();
        String failures = result.getFailures().stream()
                .map(failure -> failure.getTestIdentifier().getDisplayName() + ": " + failure.getException())
                .collect(Collectors.joining("\n"));
        String counts = String.format("%d passed, %d skipped, %d failed", result.getTestsSucceededCount(),
                result.getTestsAbortedCount() + result.getTestsSkippedCount(), result.getTotalFailureCount());
        assertThat(result.getTotalFailureCount()).as(counts + "\n" + failures).isZero();
        assertThat(result.getTestsSucceededCount()).as(counts).isGreaterThanOrEqualTo(MIN_PASSED);
    }
}
