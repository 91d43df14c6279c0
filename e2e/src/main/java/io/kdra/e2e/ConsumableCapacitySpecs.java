package io.kdra.e2e;

import static org.hamcrest.Matchers.equalTo;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.CapacityRequirementsBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.kdra.framework.Builder;
import io.kdra.framework.DraSpec;
import io.kdra.framework.Driver;
import io.kdra.framework.Framework;
import io.kdra.framework.Nodes;
import io.kdra.framework.Pods;
import io.kdra.framework.Resources;
import io.kdra.framework.Waits;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * dra.go group I: one device that allows multiple allocations, with 8Gi of consumable memory (1Gi by default, at
 * least 1Gi per allocation).
 */
@DraSpec
@DisplayName("[sig-node] [DRA] kubelet [Feature:DynamicResourceAllocation] [FeatureGate:DRAConsumableCapacity]")
@Tag("sig-node")
@Tag("DRA")
@Tag("Feature:DynamicResourceAllocation")
@Tag("FeatureGate:DRAConsumableCapacity")
class ConsumableCapacitySpecs {

    final Framework f = Framework.create("dra");
    final Nodes nodes = Nodes.create(f, 1, 1);
    final Driver driver = Driver.create(f, nodes, Resources.toDriverResources(List.of(), new DeviceBuilder()
            .withName("consumable-device-1").withAllowMultipleAllocations(true)
            .addToCapacity("memory", new io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacityBuilder()
                    .withValue(new Quantity("8Gi")).withNewRequestPolicy().withDefault(new Quantity("1Gi"))
                    .withNewValidRange().withMin(new Quantity("1Gi")).endValidRange().endRequestPolicy().build())
            .build()));
    final Builder b = Builder.create(f, driver);

    @Test
    @DisplayName("must allow multiple allocations and consume capacity [KubeletMinVersion:1.34] [Beta] "
            + "[FeatureGate:DynamicResourceAllocation]")
    @Tag("KubeletMinVersion:1.34")
    @Tag("Beta")
    @Tag("FeatureGate:DynamicResourceAllocation")
    void mustAllowMultipleAllocationsAndConsumeCapacity() throws Exception {
        // the first pod uses 4Gi of the device
        Pod pod = podWithMemory("4Gi");
        b.testPod(pod);

        // the second pod asks for 8Gi, more than is left
        Pod pod2 = podWithMemory("8Gi");

        // the third pod gets the other 4Gi
        Pod pod3 = podWithMemory("4Gi");
        b.testPod(pod3);

        Waits.during("pod " + pod2.getMetadata().getName() + " stays Pending", f.timeouts().pending())
                .until(Pods.phase(f, pod2), equalTo(Pods.PENDING));

        b.deletePodAndWaitForNotFound(pod);
        b.deletePodAndWaitForNotFound(pod3);

        // now there is capacity for the second pod
        b.testPod(pod2);
    }

    /** Creates a claim that requests this much memory and a pod that uses it. */
    private Pod podWithMemory(String memory) {
        ResourceClaim claim = b.externalClaim();
        claim.getSpec().getDevices().getRequests().get(0).getExactly().setCapacity(new CapacityRequirementsBuilder()
                .withRequests(Map.of("memory", new Quantity(memory))).build());
        Pod pod = b.podExternal(claim.getMetadata().getName());
        b.create(claim, pod);
        return pod;
    }
}
