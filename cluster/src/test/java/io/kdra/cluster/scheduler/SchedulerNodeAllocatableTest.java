package io.kdra.cluster.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.NodeAllocatableMappedResources;
import io.fabric8.kubernetes.api.model.NodeAllocatableOverheadResources;
import io.fabric8.kubernetes.api.model.NodeAllocatableResourceClaimStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.NodeAllocatableResourceBuilder;
import io.kdra.cluster.Timing;
import io.kdra.kube.FeatureGates;
import io.kdra.kube.KubernetesVersion;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * KEP-5517: with DRANodeAllocatableResources the scheduler records, before binding, what the pod's claims' devices
 * add to the node's resources in {@code status.nodeAllocatableResourceClaimStatuses}, the entries the kubelet sizes
 * the cgroups from.
 */
class SchedulerNodeAllocatableTest {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final KubernetesVersion V1_36 = new KubernetesVersion(1, 36);

    @Test
    void theBoundPodCarriesWhatItsClaimsDevicesAdd() {
        try (SchedulerFixture cluster = new SchedulerFixture(
                FeatureGates.parse(V1_36, "DRANodeAllocatableResources=true"), Timing.FAST)) {
            prepare(cluster);
            Pod pod = claimPodWithInitContainer(cluster);

            await().atMost(WAIT).until(() -> cluster.nodeOf(pod.getMetadata().getName()) != null);
            assertThat(cluster.pod("p").getStatus().getNodeAllocatableResourceClaimStatuses()).containsExactly(
                    new NodeAllocatableResourceClaimStatus(List.of("init", "c"),
                            List.of(new NodeAllocatableMappedResources("cpu", new Quantity("2"))),
                            List.of(new NodeAllocatableOverheadResources("memory", new Quantity("50Mi"),
                                    new Quantity("100Mi"))),
                            "gpu-claim"));
        }
    }

    @Test
    void withoutTheGateNothingIsRecordedAndTheApiServerDropsTheField() {
        try (SchedulerFixture cluster = new SchedulerFixture(FeatureGates.defaults(V1_36), Timing.FAST)) {
            prepare(cluster);
            claimPodWithInitContainer(cluster);

            await().atMost(WAIT).until(() -> cluster.nodeOf("p") != null);
            assertThat(cluster.pod("p").getStatus().getNodeAllocatableResourceClaimStatuses()).isEmpty();

            cluster.client.pods().withName("p").subresource("status").patch(
                    io.fabric8.kubernetes.client.dsl.base.PatchContext.of(
                            io.fabric8.kubernetes.client.dsl.base.PatchType.STRATEGIC_MERGE),
                    "{\"status\":{\"nodeAllocatableResourceClaimStatuses\":[{\"resourceClaimName\":\"gpu-claim\"}]}}");
            assertThat(cluster.pod("p").getStatus().getNodeAllocatableResourceClaimStatuses()).isEmpty();
        }
    }

    private static void prepare(SchedulerFixture cluster) {
        cluster.node("node-a");
        cluster.deviceClass(SchedulerFixture.CLASS);
        cluster.slice("node-a", List.of(new DeviceBuilder().withName("device-00").withNodeAllocatableResources(
                Map.of("cpu", new NodeAllocatableResourceBuilder().withNewMapping()
                                .withDeviceMultiplier(new Quantity("2")).endMapping().build(),
                        "memory", new NodeAllocatableResourceBuilder().withNewOverhead()
                                .withPerPod(new Quantity("100Mi")).withPerContainer(new Quantity("50Mi"))
                                .endOverhead().build()))
                .build()));
        cluster.claim("gpu-claim");
    }

    /** The pod's claim {@code gpu} is {@code gpu-claim}; its init container and its container both use it. */
    private static Pod claimPodWithInitContainer(SchedulerFixture cluster) {
        return cluster.client.pods().resource(SchedulerFixture.podBuilder("p").editSpec()
                .addToInitContainers(new ContainerBuilder().withName("init").withImage("busybox").withNewResources()
                        .addNewClaim().withName("gpu").endClaim().endResources().build())
                .addNewResourceClaim().withName("gpu").withResourceClaimName("gpu-claim").endResourceClaim()
                .endSpec().build()).create();
    }
}
