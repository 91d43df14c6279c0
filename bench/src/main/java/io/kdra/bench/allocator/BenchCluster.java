package io.kdra.bench.allocator;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.AllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceSelector;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceSelectorBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.kdra.allocator.AllocatedState;
import io.kdra.allocator.AllocationException;
import io.kdra.allocator.AllocationOutcome;
import io.kdra.allocator.DeviceId;
import io.kdra.allocator.Inventory;
import io.kdra.allocator.StructuredAllocator;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A simulated cluster for allocation benchmarks: each operation allocates one pod's claims on the next node in turn,
 * as a scheduler that found the node would, and records the devices as taken. When no node has room left, all
 * devices are freed again, so the benchmark measures a steady mix of empty and full nodes.
 */
final class BenchCluster {

    static final String DRIVER = "test-driver.cdi.k8s.io";

    private final StructuredAllocator allocator;
    private final List<ResourceSlice> slices;
    private Inventory inventory;
    private final Node[] nodes;
    private final Map<String, DeviceClass> classes;
    private final List<ResourceClaim> claims;
    private final Set<DeviceId> taken = new HashSet<>();
    private final AllocatedState allocated = AllocatedState.of(taken);
    private int nextNode;
    private int failuresInARow;

    BenchCluster(StructuredAllocator allocator, List<ResourceSlice> slices, int nodeCount,
            List<DeviceClass> deviceClasses, List<ResourceClaim> podClaims) {
        this.allocator = allocator;
        this.slices = List.copyOf(slices);
        this.inventory = allocator.inventory(slices, List.of());
        this.nodes = new Node[nodeCount];
        for (int i = 0; i < nodeCount; i++) {
            nodes[i] = new NodeBuilder().withNewMetadata().withName(nodeName(i)).endMetadata().build();
        }
        this.classes = new HashMap<>();
        for (DeviceClass deviceClass : deviceClasses) {
            classes.put(deviceClass.getMetadata().getName(), deviceClass);
        }
        this.claims = List.copyOf(podClaims);
    }

    static String nodeName(int index) {
        return "node-" + index;
    }

    /** A claim for {@code count} devices of the class that pass the CEL {@code selectors}. */
    static ResourceClaim claim(String name, String className, long count, String... selectors) {
        List<DeviceSelector> celSelectors = new ArrayList<>();
        for (String selector : selectors) {
            celSelectors.add(new DeviceSelectorBuilder().withNewCel(selector).build());
        }
        return new ResourceClaimBuilder()
                .withNewMetadata().withNamespace("bench").withName(name).withUid("uid-" + name).endMetadata()
                .withNewSpec().withNewDevices().addNewRequest().withName("req-0").withNewExactly()
                .withDeviceClassName(className).withCount(count).withSelectors(celSelectors).endExactly()
                .endRequest().endDevices().endSpec()
                .build();
    }

    /**
     * Prepares the inventory again, as after any ResourceSlice change, so that selectors run on the devices anew
     * instead of coming from the inventory's cache.
     */
    void refreshInventory() {
        inventory = allocator.inventory(slices, List.of());
    }

    /** Allocates the pod's claims on the next node and takes the devices. */
    AllocationOutcome allocateNext() throws AllocationException {
        Node node = nodes[nextNode];
        nextNode = (nextNode + 1) % nodes.length;
        AllocationOutcome outcome = allocator.allocate(claims, node, inventory, classes, allocated);
        if (outcome instanceof AllocationOutcome.Allocated done) {
            failuresInARow = 0;
            for (AllocationResult result : done.results()) {
                for (DeviceRequestAllocationResult device : result.getDevices().getResults()) {
                    taken.add(new DeviceId(device.getDriver(), device.getPool(), device.getDevice()));
                }
            }
        } else if (++failuresInARow == nodes.length) {
            taken.clear();
            failuresInARow = 0;
        }
        return outcome;
    }
}
