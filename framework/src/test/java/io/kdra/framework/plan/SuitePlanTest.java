package io.kdra.framework.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.ClassNameFilter.includeClassNamePatterns;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectPackage;

import io.kdra.framework.ClusterRequirements;
import io.kdra.framework.FrameworkExtensionAccess;
import io.kdra.kube.KubernetesVersion;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/** One embedded cluster serves a whole run: every spec gets the union of the plan's gates and kubelet versions. */
class SuitePlanTest {

    @Test
    void aSpecOfARunGetsTheRequirementsOfEverySpecInIt() {
        LauncherFactory.create().execute(LauncherDiscoveryRequestBuilder.request()
                .selectors(selectPackage(SuitePlanTest.class.getPackageName()))
                .filters(includeClassNamePatterns(".*Sample")).build());

        ClusterRequirements seen = RequirementsProbeSample.seen;
        assertThat(seen.featureGates()).containsEntry("DRAPrioritizedList", true)
                .containsEntry("DRAConsumableCapacity", true);
        assertThat(seen.kubeletVersion()).isGreaterThanOrEqualTo(KubernetesVersion.parse("1.35"));
    }

    @Test
    void aSpecAlwaysGetsWhatItsOwnLabelsAskFor() {
        assertThat(FrameworkExtensionAccess.requirements(Set.of("FeatureGate:DRAPrioritizedList")).featureGates())
                .containsEntry("DRAPrioritizedList", true);
    }
}
