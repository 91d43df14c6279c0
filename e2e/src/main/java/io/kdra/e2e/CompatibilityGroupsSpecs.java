package io.kdra.e2e;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.CounterBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.CounterSet;
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
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * compatibility_groups.go: two devices share one counter set with room for both, so only their compatibility groups
 * decide whether they can be allocated together.
 */
@DraSpec
@DisplayName("[sig-node] [DRA] [FeatureGate:DRADeviceCompatibilityGroups] device compatibility groups")
@Tag("sig-node")
@Tag("DRA")
@Tag("FeatureGate:DRADeviceCompatibilityGroups")
class CompatibilityGroupsSpecs {

    static final String COUNTER_SET = "gpu";

    final Framework f = Framework.create("dra-compat-groups");
    final Nodes nodes = Nodes.create(f, 1, 1);

    @Test
    @DisplayName("incompatible devices leave a pod requesting an incompatible device unschedulable")
    void incompatibleDevices() throws Exception {
        // the groups mig and vgpu exclude each other
        Builder b = driverWith(device("gpu-mig", "mig"), device("gpu-vgpu", "vgpu"));

        f.by("the first pod takes one of the two devices");
        runPod(b);

        f.by("the only remaining device is incompatible, although the counter set has room for it");
        ResourceClaim claim2 = b.create(b.externalClaim());
        Pod pod2 = b.create(b.podExternal(claim2.getMetadata().getName()));
        Pods.waitForUnschedulable(f, pod2);
    }

    @Test
    @DisplayName("compatible devices schedule two pods that share a compatibility group")
    void compatibleDevices() throws Exception {
        Builder b = driverWith(device("gpu-0", "mig"), device("gpu-1", "mig"));
        runPod(b);
        runPod(b);
    }

    private Builder driverWith(Device... devices) throws Exception {
        Driver driver = Driver.instance(f);
        CounterSet counters = new CounterSetBuilder().withName(COUNTER_SET)
                .addToCounters("mem", new CounterBuilder().withValue(new Quantity("2")).build()).build();
        driver.run(nodes, Resources.toDriverResources(List.of(counters), devices).apply(nodes));
        return Builder.now(f, driver);
    }

    private void runPod(Builder b) throws Exception {
        ResourceClaim claim = b.create(b.externalClaim());
        Pod pod = b.create(b.podExternal(claim.getMetadata().getName()));
        b.testPod(pod);
    }

    /** Consumes half of the counter set and declares one compatibility group for it. */
    private static Device device(String name, String group) {
        return new DeviceBuilder().withName(name).addNewConsumesCounter().withCounterSet(COUNTER_SET)
                .addToCounters("mem", new CounterBuilder().withValue(new Quantity("1")).build())
                .withCompatibilityGroups(group).endConsumesCounter().build();
    }
}
