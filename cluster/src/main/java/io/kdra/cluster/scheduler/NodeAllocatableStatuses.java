package io.kdra.cluster.scheduler;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.NodeAllocatableMappedResources;
import io.fabric8.kubernetes.api.model.NodeAllocatableOverheadResources;
import io.fabric8.kubernetes.api.model.NodeAllocatableResourceClaimStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodResourceClaim;
import io.fabric8.kubernetes.api.model.PodResourceClaimStatus;
import io.fabric8.kubernetes.api.model.resource.v1.AllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.NodeAllocatableMapping;
import io.fabric8.kubernetes.api.model.resource.v1.NodeAllocatableOverhead;
import io.fabric8.kubernetes.api.model.resource.v1.NodeAllocatableResource;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.kdra.kube.Quantity;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The pod's {@code status.nodeAllocatableResourceClaimStatuses} (KEP-5517, gate DRANodeAllocatableResources), as the
 * DynamicResources plugin builds it for the chosen node and writes it in PreBind ({@code buildNodeAllocatableDRAInfo}):
 * for each of the pod's claims whose allocated devices declare {@code nodeAllocatableResources}, the claim's name, the
 * containers (init containers first) that reference it, the mapped amounts summed over its devices (a
 * {@code deviceMultiplier} per device, or the capacity consumed under {@code capacityKey} times
 * {@code capacityMultiplier}) and the per-pod and per-container overheads summed likewise. The kubelet reads this to
 * size the cgroups; it never looks at the slices.
 */
final class NodeAllocatableStatuses {

    /** Finds an allocated device in the slices the chosen node sees; null when there is none. */
    @FunctionalInterface
    interface Devices {
        Device find(String driver, String pool, String device);
    }

    /** Upstream's error for a mapping the allocation cannot fill; the pod does not fit the node. */
    static final class MappingException extends Exception {
        MappingException(String message) {
            super(message);
        }
    }

    private NodeAllocatableStatuses() {}

    /**
     * @param allocations the allocation of each of the pod's claims, by claim name (the ResourceClaim's)
     * @return the statuses sorted by claim name; empty when no allocated device adds node resources
     */
    static List<NodeAllocatableResourceClaimStatus> of(Pod pod, Map<String, AllocationResult> allocations,
            Devices devices) throws MappingException {
        Map<String, NodeAllocatableResourceClaimStatus> byClaim = new TreeMap<>();
        for (Map.Entry<String, AllocationResult> entry : allocations.entrySet()) {
            NodeAllocatableResourceClaimStatus status = status(pod, entry.getKey(), entry.getValue(), devices);
            if (status != null) {
                byClaim.put(entry.getKey(), status);
            }
        }
        if (byClaim.isEmpty()) {
            return List.of();
        }
        Map<String, String> claimNames = claimNames(pod);
        for (List<Container> containers : List.of(pod.getSpec().getInitContainers(), pod.getSpec().getContainers())) {
            for (Container container : containers) {
                if (container.getResources() == null) {
                    continue;
                }
                for (io.fabric8.kubernetes.api.model.ResourceClaim reference
                        : Lists.orEmpty(container.getResources().getClaims())) {
                    NodeAllocatableResourceClaimStatus status = byClaim.get(claimNames.get(reference.getName()));
                    if (status != null) {
                        status.getContainers().add(container.getName());
                    }
                }
            }
        }
        return List.copyOf(byClaim.values());
    }

    private static NodeAllocatableResourceClaimStatus status(Pod pod, String claimName, AllocationResult allocation,
            Devices devices) throws MappingException {
        if (allocation == null || allocation.getDevices() == null) {
            return null;
        }
        Map<String, Quantity> mapped = new TreeMap<>();
        Map<String, Quantity> perPod = new TreeMap<>();
        Map<String, Quantity> perContainer = new TreeMap<>();
        for (DeviceRequestAllocationResult result : Lists.orEmpty(allocation.getDevices().getResults())) {
            Device device = devices.find(result.getDriver(), result.getPool(), result.getDevice());
            if (device == null || device.getNodeAllocatableResources() == null) {
                continue;
            }
            for (Map.Entry<String, NodeAllocatableResource> entry : device.getNodeAllocatableResources().entrySet()) {
                String resource = entry.getKey();
                NodeAllocatableMapping mapping = entry.getValue().getMapping();
                if (mapping != null) {
                    Quantity amount = mappedAmount(pod, claimName, resource, mapping, result);
                    if (amount != null) {
                        mapped.merge(resource, amount, Quantity::add);
                    }
                }
                NodeAllocatableOverhead overhead = entry.getValue().getOverhead();
                if (overhead != null && overhead.getPerPod() != null) {
                    perPod.merge(resource, Quantity.fromFabric8(overhead.getPerPod()), Quantity::add);
                }
                if (overhead != null && overhead.getPerContainer() != null) {
                    perContainer.merge(resource, Quantity.fromFabric8(overhead.getPerContainer()), Quantity::add);
                }
            }
        }
        if (mapped.isEmpty() && perPod.isEmpty() && perContainer.isEmpty()) {
            return null;
        }
        List<NodeAllocatableMappedResources> mappings = new ArrayList<>();
        mapped.forEach((resource, amount) -> mappings.add(new NodeAllocatableMappedResources(resource,
                amount.toFabric8())));
        Set<String> overheadResources = new TreeSet<>(perPod.keySet());
        overheadResources.addAll(perContainer.keySet());
        List<NodeAllocatableOverheadResources> overheads = new ArrayList<>();
        for (String resource : overheadResources) {
            overheads.add(new NodeAllocatableOverheadResources(resource, fabric8(perContainer.get(resource)),
                    fabric8(perPod.get(resource))));
        }
        return new NodeAllocatableResourceClaimStatus(new ArrayList<>(), mappings, overheads, claimName);
    }

    /** {@code addDeviceMapping}: null when the device consumed nothing under the mapping's capacity key. */
    private static Quantity mappedAmount(Pod pod, String claimName, String resource, NodeAllocatableMapping mapping,
            DeviceRequestAllocationResult result) throws MappingException {
        if (mapping.getCapacityKey() != null && !mapping.getCapacityKey().isEmpty()) {
            if (result.getConsumedCapacity() == null) {
                throw new MappingException(String.format("claim %s/%s, device %s: ConsumedCapacity is nil, but"
                        + " Capacity key '%s' is set in NodeAllocatableResources for resource %s",
                        pod.getMetadata().getNamespace(), claimName, result.getDevice(), mapping.getCapacityKey(),
                        resource));
            }
            io.fabric8.kubernetes.api.model.Quantity consumed = result.getConsumedCapacity()
                    .get(mapping.getCapacityKey());
            if (consumed == null) {
                return null;
            }
            Quantity amount = Quantity.fromFabric8(consumed);
            if (mapping.getCapacityMultiplier() == null) {
                return amount;
            }
            BigDecimal product = amount.value().multiply(Quantity.fromFabric8(mapping.getCapacityMultiplier()).value())
                    .stripTrailingZeros();
            // an integral product keeps the consumed amount's format (2Gi stays binary), as upstream's does
            return product.scale() <= 0 && product.toBigInteger().bitLength() < 63
                    ? Quantity.of(product.longValueExact(), amount.format())
                    : Quantity.parse(product.toPlainString());
        }
        return mapping.getDeviceMultiplier() == null ? null : Quantity.fromFabric8(mapping.getDeviceMultiplier());
    }

    /** The pod's claim names ({@code spec.resourceClaims[].name}) with the ResourceClaim each stands for. */
    private static Map<String, String> claimNames(Pod pod) {
        Map<String, String> names = new LinkedHashMap<>();
        for (PodResourceClaim podClaim : Lists.orEmpty(pod.getSpec().getResourceClaims())) {
            String name = podClaim.getResourceClaimName();
            if (name == null && pod.getStatus() != null) {
                for (PodResourceClaimStatus status : Lists.orEmpty(pod.getStatus().getResourceClaimStatuses())) {
                    if (Objects.equals(status.getName(), podClaim.getName())) {
                        name = status.getResourceClaimName();
                    }
                }
            }
            if (name != null) {
                names.put(podClaim.getName(), name);
            }
        }
        return names;
    }

    private static io.fabric8.kubernetes.api.model.Quantity fabric8(Quantity quantity) {
        return quantity == null ? null : quantity.toFabric8();
    }

    /** The claims of the pod's cycle by name, with the allocation each has or gets in this cycle. */
    static Map<String, AllocationResult> allocations(List<Binder.ClaimToBind> claims) {
        Map<String, AllocationResult> allocations = new LinkedHashMap<>();
        for (Binder.ClaimToBind claim : claims) {
            ResourceClaim resourceClaim = claim.claim();
            allocations.put(resourceClaim.getMetadata().getName(), claim.allocation() != null ? claim.allocation()
                    : DynamicResources.allocationOf(resourceClaim));
        }
        return allocations;
    }
}
