package io.kdra.cluster.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.NodeAllocatableMappedResources;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodResourceClaimStatus;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.AllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.AllocationResultBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResultBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.NodeAllocatableResourceBuilder;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The entries of {@code status.nodeAllocatableResourceClaimStatuses}, without a server. */
class NodeAllocatableStatusesTest {

    private static final Device SOCKET = new DeviceBuilder().withName("socket0").withNodeAllocatableResources(Map.of(
            "cpu", new NodeAllocatableResourceBuilder().withNewMapping().withCapacityKey("dra.example.com/cores")
                    .withCapacityMultiplier(new Quantity("2")).endMapping().build(),
            "memory", new NodeAllocatableResourceBuilder().withNewMapping().withCapacityKey("dra.example.com/memory")
                    .withCapacityMultiplier(new Quantity("1")).endMapping().build())).build();
    private static final Device PLAIN = new DeviceBuilder().withName("plain").build();

    @Test
    void aCapacityKeyMapsTheConsumedCapacityTimesTheMultiplier() throws Exception {
        Pod pod = templatePod();
        AllocationResult allocation = allocation("socket0", Map.of("dra.example.com/cores", new Quantity("2"),
                "dra.example.com/memory", new Quantity("4Gi")));

        var statuses = NodeAllocatableStatuses.of(pod, Map.of("p-cpu-abcde", allocation), this::find);

        assertThat(statuses).singleElement().satisfies(status -> {
            assertThat(status.getResourceClaimName()).isEqualTo("p-cpu-abcde");
            assertThat(status.getContainers()).containsExactly("c");
            assertThat(status.getMapping()).containsExactly(
                    new NodeAllocatableMappedResources("cpu", new Quantity("4")),
                    new NodeAllocatableMappedResources("memory", new Quantity("4Gi")));
            assertThat(status.getOverhead()).isEmpty();
        });
    }

    @Test
    void devicesThatAddNothingGiveNoEntry() throws Exception {
        assertThat(NodeAllocatableStatuses.of(templatePod(), Map.of("p-cpu-abcde", allocation("plain", null)),
                this::find)).isEmpty();
    }

    @Test
    void aCapacityKeyWithoutConsumedCapacityFailsAsUpstream() {
        assertThatThrownBy(() -> NodeAllocatableStatuses.of(templatePod(),
                Map.of("p-cpu-abcde", allocation("socket0", null)), this::find))
                .isInstanceOf(NodeAllocatableStatuses.MappingException.class)
                .hasMessageStartingWith("claim default/p-cpu-abcde, device socket0: ConsumedCapacity is nil, but"
                        + " Capacity key 'dra.example.com/");
    }

    private Device find(String driver, String pool, String device) {
        return Map.of("socket0", SOCKET, "plain", PLAIN).get(device);
    }

    /** A pod whose claim {@code cpu}, from a template, became {@code p-cpu-abcde}; container {@code c} uses it. */
    private static Pod templatePod() {
        Pod pod = SchedulerFixture.podBuilder("p").editMetadata().withNamespace("default").endMetadata().editSpec()
                .editFirstContainer().editResources().editFirstClaim().withName("cpu").endClaim().endResources()
                .endContainer().addNewResourceClaim().withName("cpu").withResourceClaimTemplateName("t")
                .endResourceClaim().endSpec().withNewStatus().endStatus().build();
        pod.getStatus().getResourceClaimStatuses().add(new PodResourceClaimStatus("cpu", "p-cpu-abcde"));
        return pod;
    }

    private static AllocationResult allocation(String device, Map<String, Quantity> consumed) {
        return new AllocationResultBuilder().withNewDevices().addToResults(new DeviceRequestAllocationResultBuilder()
                .withRequest("req").withDriver(SchedulerFixture.DRIVER).withPool("node-a").withDevice(device)
                .withConsumedCapacity(consumed).build()).endDevices().build();
    }
}
