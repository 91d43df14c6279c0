package io.kdra.framework;

import static org.assertj.core.api.Assertions.assertThat;

import io.kdra.kube.KubernetesVersion;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ClusterRequirementsTest {

    @Test
    void featureGateTagsTurnGatesOnAndKubeletMinVersionRaisesTheVersions() {
        ClusterRequirements requirements = ClusterRequirements.forTags(Set.of("DRA", "FeatureGate:DRADeviceTaints",
                "FeatureGate:DRAPrioritizedList", "KubeletMinVersion:1.35", "Feature:DynamicResourceAllocation"));

        assertThat(requirements.featureGates()).isEqualTo(Map.of("DRADeviceTaints", true, "DRAPrioritizedList", true));
        assertThat(requirements.featureGatesFlag()).isEqualTo("DRADeviceTaints=true,DRAPrioritizedList=true");
        assertThat(requirements.kubeletVersion()).isEqualTo(KubernetesVersion.parse("1.35"));
        assertThat(requirements.kubernetesVersion()).isEqualTo(KubernetesVersion.parse("1.35"));
    }

    @Test
    void specsWithoutNeedsShareTheDefaultCluster() {
        assertThat(ClusterRequirements.forTags(Set.of("DRA", "KubeletMinVersion:1.33")))
                .isEqualTo(ClusterRequirements.forTags(Set.of("sig-node", "Conformance")));
    }

    @Test
    void theRealSliceWipingDelayIsARequirementOfItsOwn() {
        ClusterRequirements fast = ClusterRequirements.forTags(Set.of("KubeletMinVersion:1.33"));
        ClusterRequirements real = fast.withRealSliceWipingDelay();

        assertThat(fast.realSliceWipingDelay()).isFalse();
        assertThat(real.realSliceWipingDelay()).isTrue();
        assertThat(real).as("a cluster of its own").isNotEqualTo(fast)
                .isEqualTo(ClusterRequirements.forTags(Set.of("KubeletMinVersion:1.33")).withRealSliceWipingDelay());
        assertThat(real.featureGates()).isEqualTo(fast.featureGates());
        assertThat(real.kubeletVersion()).isEqualTo(fast.kubeletVersion());
    }

    @Test
    void anUpgradableClusterIsOfItsOwnAndStartsOneMinorReleaseBack() {
        ClusterRequirements current = ClusterRequirements.forTags(Set.of("FeatureGate:DynamicResourceAllocation"));
        ClusterRequirements upgradable = current.upgradableFromPreviousMinor();

        assertThat(upgradable.kubernetesVersion()).isEqualTo(KubernetesVersion.parse("1.33"));
        assertThat(upgradable.kubeletVersion()).isEqualTo(KubernetesVersion.parse("1.33"));
        assertThat(upgradable.featureGates()).isEqualTo(current.featureGates());
        assertThat(upgradable.upgradable()).isTrue();
        assertThat(upgradable).as("a cluster of its own").isNotEqualTo(new ClusterRequirements(current.nodes(),
                KubernetesVersion.parse("1.33"), KubernetesVersion.parse("1.33"), current.featureGates(), false,
                false, false));
    }

    @Test
    void theNodeSuiteGetsAClusterApartWithTheSameRequirements() {
        ClusterRequirements shared = ClusterRequirements.forTags(Set.of("FeatureGate:DRAConsumableCapacity"));
        ClusterRequirements nodeSuite = shared.forNodeSuite();

        assertThat(nodeSuite).isNotEqualTo(shared);
        assertThat(nodeSuite.featureGates()).isEqualTo(shared.featureGates());
        assertThat(nodeSuite.kubeletVersion()).isEqualTo(shared.kubeletVersion());
        assertThat(nodeSuite.withRealSliceWipingDelay().nodeSuite()).isTrue();
    }

    @Test
    void gatesASpecNeedsOffAreSetOffOnTopOfItsTags() {
        ClusterRequirements on = ClusterRequirements.forTags(Set.of("FeatureGate:DRAConsumableCapacity"));
        ClusterRequirements off = on.withFeatureGatesOff(Set.of("ResourceHealthStatus"));

        assertThat(off.featureGatesFlag()).as("ResourceHealthStatusMessage does not exist at 1.34 yet")
                .isEqualTo("DRAConsumableCapacity=true,ResourceHealthStatus=false");
        assertThat(off).as("a cluster of its own").isNotEqualTo(on);
        assertThat(off.kubernetesVersion()).isEqualTo(on.kubernetesVersion());
        assertThat(ClusterRequirements.forTags(Set.of("KubeletMinVersion:1.37"))
                .withFeatureGatesOff(Set.of("ResourceHealthStatus")).featureGatesFlag())
                .as("its dependents go off with it where they exist")
                .isEqualTo("ResourceHealthStatus=false,ResourceHealthStatusMessage=false");
    }

    @Test
    void aGateNewerThanTheDefaultVersionRaisesControlPlaneAndKubelets() {
        ClusterRequirements requirements = ClusterRequirements.forTags(Set.of("FeatureGate:DRADeviceTaints",
                "FeatureGate:DRADeviceTaintRules"));

        assertThat(requirements.kubernetesVersion()).isEqualTo(KubernetesVersion.parse("1.35"));
        assertThat(requirements.kubeletVersion()).isEqualTo(KubernetesVersion.parse("1.35"));
    }

    @Test
    void aGateNewerThanTheDefaultVersionRaisesTheVersionsToTheFirstThatHasIt() {
        ClusterRequirements alpha136 = ClusterRequirements.forTags(Set.of("FeatureGate:DRAResourcePoolStatus",
                "FeatureGate:DynamicResourceAllocation"));
        assertThat(alpha136.kubernetesVersion()).isEqualTo(KubernetesVersion.parse("1.36"));
        assertThat(alpha136.kubeletVersion()).isEqualTo(KubernetesVersion.parse("1.36"));

        ClusterRequirements alpha137 = ClusterRequirements.forTags(Set.of("FeatureGate:DRAResourcePoolStatus",
                "FeatureGate:DRAPartitionableDevices", "FeatureGate:DRAPartitionableDevicesType"));
        assertThat(alpha137.kubernetesVersion()).isEqualTo(KubernetesVersion.parse("1.37"));
    }
}
