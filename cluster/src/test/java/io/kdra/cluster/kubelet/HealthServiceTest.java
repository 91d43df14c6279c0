package io.kdra.cluster.kubelet;

import static org.assertj.core.api.Assertions.assertThat;

import io.kdra.kube.FeatureGates;
import io.kdra.kube.KubernetesVersion;
import java.util.List;
import org.junit.jupiter.api.Test;

class HealthServiceTest {

    private static final List<String> ALL = List.of("v1.DRAResourceHealth", "v1beta1.DRAResourceHealth",
            "v1alpha1.DRAResourceHealth");

    private static FeatureGates gates(KubernetesVersion version) {
        return FeatureGates.defaults(version).with(FeatureGates.RESOURCE_HEALTH_STATUS, true);
    }

    @Test
    void aKubelet136HasNoV1ClientAndPicksTheNewestOtherVersion() {
        KubernetesVersion v136 = new KubernetesVersion(1, 36);
        assertThat(HealthService.choose(v136, gates(v136), List.of("v1.DRAResourceHealth",
                "v1alpha1.DRAResourceHealth"))).contains(HealthService.V1ALPHA1);
        assertThat(HealthService.choose(v136, gates(v136), List.of("v1.DRAResourceHealth"))).isEmpty();
    }

    @Test
    void aKubelet137PicksV1WhenServed() {
        KubernetesVersion v137 = new KubernetesVersion(1, 37);
        assertThat(HealthService.choose(v137, gates(v137), ALL)).contains(HealthService.V1);
        assertThat(HealthService.choose(v137, gates(v137), List.of("v1alpha1.DRAResourceHealth")))
                .contains(HealthService.V1ALPHA1);
    }
}
