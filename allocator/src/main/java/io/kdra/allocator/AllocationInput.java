package io.kdra.allocator;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceTaintRule;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import java.util.List;
import java.util.Objects;

/**
 * Everything one allocation needs, for callers that do not keep an {@link Inventory}.
 *
 * @param claims the pod's unallocated claims; they are allocated together
 * @param node the candidate node
 * @param slices all ResourceSlices
 * @param classes all DeviceClasses
 * @param taintRules all DeviceTaintRules
 * @param allocated devices already taken
 */
public record AllocationInput(
        List<ResourceClaim> claims,
        Node node,
        List<ResourceSlice> slices,
        List<DeviceClass> classes,
        List<DeviceTaintRule> taintRules,
        AllocatedState allocated) {

    public AllocationInput {
        claims = List.copyOf(claims);
        Objects.requireNonNull(node, "node");
        slices = List.copyOf(slices);
        classes = List.copyOf(classes);
        taintRules = List.copyOf(taintRules);
        Objects.requireNonNull(allocated, "allocated");
    }
}
