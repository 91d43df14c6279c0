package io.kdra.bench.scheduling;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The catalogue follows scheduler_perf's names and shapes; scaled workloads keep their proportions. */
class WorkloadTest {

    @Test
    void theTargetWorkloadHasUpstreamsShape() {
        Workload workload = Workload.named("SchedulingWithResourceClaimTemplate/5000pods_500nodes").orElseThrow();

        assertThat(workload.nodes()).isEqualTo(500);
        assertThat(workload.devicesPerNode()).isEqualTo(10);
        assertThat(workload.initPods()).isEqualTo(2500);
        assertThat(workload.measurePods()).isEqualTo(2500);
        assertThat(Workload.named("5000pods_500nodes")).contains(workload);
    }

    @Test
    void steadyStateWorkloadsLeaveHalfOrTenDevicesFree() {
        assertThat(Workload.named("half_500nodes").orElseThrow().initClaims()).isEqualTo(2500);
        assertThat(Workload.named("full_500nodes").orElseThrow().initClaims()).isEqualTo(4990);
        assertThat(Workload.named("full_500nodes").orElseThrow().scaled(20, null).initClaims()).isEqualTo(190);
        assertThat(Workload.named("half_500nodes").orElseThrow().scaled(20, null).initClaims()).isEqualTo(100);
    }

    @Test
    void aScaledWorkloadShrinksItsPodsWithItsNodes() {
        Workload scaled = Workload.named("5000pods_500nodes").orElseThrow().scaled(50, null);

        assertThat(scaled.nodes()).isEqualTo(50);
        assertThat(scaled.initPods()).isEqualTo(250);
        assertThat(scaled.measurePods()).isEqualTo(250);
        assertThat(scaled.fullName()).isEqualTo("SchedulingWithResourceClaimTemplate/5000pods_500nodes@50nodes");
    }

    @Test
    void anAmbiguousOrUnknownNameFindsNothing() {
        assertThat(Workload.named("nosuch")).isEmpty();
    }
}
