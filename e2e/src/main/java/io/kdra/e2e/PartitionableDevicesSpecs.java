package io.kdra.e2e;

import static org.hamcrest.Matchers.equalTo;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.CounterBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.CounterSetBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
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

/** dra.go group L: two devices that consume 4Gi each of the 6Gi of one counter set, so only one fits at a time. */
@DraSpec
@DisplayName("[sig-node] [DRA] kubelet [Feature:DynamicResourceAllocation] [FeatureGate:DRAPartitionableDevices]")
@Tag("sig-node")
@Tag("DRA")
@Tag("Feature:DynamicResourceAllocation")
@Tag("FeatureGate:DRAPartitionableDevices")
class PartitionableDevicesSpecs {

    final Framework f = Framework.create("dra");
    final Nodes nodes = Nodes.create(f, 1, 1);
    final Driver driver = Driver.create(f, nodes, Resources.toDriverResources(
            List.of(new CounterSetBuilder().withName("counter-1")
                    .withCounters(Map.of("memory", new CounterBuilder().withValue(new Quantity("6Gi")).build()))
                    .build()),
            consumingMemory("device-1"), consumingMemory("device-2")));
    final Builder b = Builder.create(f, driver);

    private static Device consumingMemory(String name) {
        return new DeviceBuilder().withName(name).addNewConsumesCounter().withCounterSet("counter-1")
                .withCounters(Map.of("memory", new CounterBuilder().withValue(new Quantity("4Gi")).build()))
                .endConsumesCounter().build();
    }

    @Test
    @DisplayName("must consume and free up counters [Beta] [FeatureGate:DynamicResourceAllocation]")
    @Tag("Beta")
    @Tag("FeatureGate:DynamicResourceAllocation")
    void mustConsumeAndFreeUpCounters() throws Exception {
        // Both devices are available, so there are counters enough for one.
        ResourceClaim claim = b.externalClaim();
        Pod pod = b.podExternal(claim.getMetadata().getName());
        b.create(claim, pod);
        b.testPod(pod);

        // Not enough counters are left for a second device.
        ResourceClaim claim2 = b.externalClaim();
        Pod pod2 = b.podExternal(claim2.getMetadata().getName());
        b.create(claim2, pod2);
        Waits.during("pod " + pod2.getMetadata().getName() + " stays Pending", f.timeouts().pending())
                .until(Pods.phase(f, pod2), equalTo(Pods.PENDING));

        b.deletePodAndWaitForNotFound(pod);

        // the first device's counters are free again
        b.testPod(pod2);
    }
}
