package io.kdra.allocator;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceTaintRule;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.kdra.allocator.cel.SelectorCompiler;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kubernetes' structured DRA allocator: finds devices for all claims of one pod on one node, or says why it cannot.
 * The first solution of a depth-first search wins, exactly one result per claim; the same input always gives the same
 * result. Thread-safe; one instance serves any number of allocations.
 *
 * <pre>{@code
 * StructuredAllocator allocator = new StructuredAllocator(compiler, AllocatorFeatures.KUBERNETES_1_34);
 * Inventory inventory = allocator.inventory(slices, taintRules);   // reuse while slices do not change
 * switch (allocator.allocate(claims, node, inventory, classesByName, allocatedState)) {
 *     case AllocationOutcome.Allocated allocated -> write(allocated.results());
 *     case AllocationOutcome.CannotAllocate cannot -> tryAnotherNode(cannot.reason());
 * }
 * }</pre>
 */
public final class StructuredAllocator {

    private static final Logger LOG = LoggerFactory.getLogger(StructuredAllocator.class);

    private final SelectorCompiler compiler;
    private final AllocatorFeatures features;

    public StructuredAllocator(SelectorCompiler compiler, AllocatorFeatures features) {
        this.compiler = Objects.requireNonNull(compiler, "compiler");
        this.features = Objects.requireNonNull(features, "features");
    }

    public AllocatorFeatures features() {
        return features;
    }

    /**
     * Prepares the published devices for allocations by this allocator.
     *
     * @throws IllegalArgumentException when a slice lacks its driver, pool name or pool slice count; malformed
     *     quantities instead make the slice's pool invalid, as upstream treats pools it cannot use
     */
    public Inventory inventory(Collection<ResourceSlice> slices, Collection<DeviceTaintRule> taintRules) {
        return new Inventory(this, slices, taintRules);
    }

    /**
     * Allocates devices for all {@code claims} on {@code node}.
     *
     * @param classes DeviceClasses by name
     * @return the results, one per claim in claim order, or why the claims do not fit on this node
     * @throws AllocationException when the claims cannot be handled at all; the message says why as upstream does
     *     (for example {@code CEL runtime error} or {@code asks for all devices, but resource pool ... is currently
     *     being updated})
     */
    public AllocationOutcome allocate(List<ResourceClaim> claims, Node node, Inventory inventory,
            Map<String, DeviceClass> classes, AllocatedState allocated) throws AllocationException {
        if (inventory.owner != this) {
            throw new IllegalArgumentException("the inventory was prepared by another allocator");
        }
        AllocationOutcome outcome =
                new AllocationRun(compiler, features, inventory, node, claims, classes, allocated).run();
        if (LOG.isDebugEnabled()) {
            LOG.debug("allocation of {} claim(s) on node {}: {}", claims.size(),
                    node.getMetadata() == null ? null : node.getMetadata().getName(), outcome);
        }
        return outcome;
    }

    /**
     * Allocates with an inventory built for this call only.
     *
     * @throws AllocationException also when a ResourceSlice is malformed
     */
    public AllocationOutcome allocate(AllocationInput input) throws AllocationException {
        Inventory inventory;
        try {
            inventory = inventory(input.slices(), input.taintRules());
        } catch (IllegalArgumentException e) {
            throw new AllocationException(e.getMessage(), e);
        }
        Map<String, DeviceClass> classes = new HashMap<>();
        for (DeviceClass deviceClass : input.classes()) {
            if (deviceClass.getMetadata() == null || deviceClass.getMetadata().getName() == null) {
                throw new AllocationException("DeviceClass without metadata.name");
            }
            classes.put(deviceClass.getMetadata().getName(), deviceClass);
        }
        return allocate(input.claims(), input.node(), inventory, classes, input.allocated());
    }
}
