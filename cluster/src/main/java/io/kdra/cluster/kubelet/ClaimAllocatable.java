package io.kdra.cluster.kubelet;

import io.fabric8.kubernetes.api.model.NodeAllocatableMappedResources;
import io.fabric8.kubernetes.api.model.NodeAllocatableOverheadResources;
import io.fabric8.kubernetes.api.model.NodeAllocatableResourceClaimStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.kdra.kube.Quantity;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What one ResourceClaim of a pod adds to the pod's and its containers' node resources (KEP-5517, gate
 * DRANodeAllocatableResources), as the scheduler recorded it in the pod's
 * {@code status.nodeAllocatableResourceClaimStatuses}: the kubelet reads that entry, as upstream's does, instead of
 * fetching the claim and its devices' slices. Amounts are in the kubelet's units: millicores for {@code cpu}, bytes for
 * memory and hugepages.
 *
 * @param resourceClaimName the ResourceClaim's name
 * @param containers the names of the (init) containers that reference the claim
 * @param mapped the devices' mapped amounts by resource
 * @param perPod the overhead counted once for the pod, by resource
 * @param perContainer the overhead counted for each container that references the claim, by resource
 */
record ClaimAllocatable(String resourceClaimName, Set<String> containers, Map<String, Long> mapped,
        Map<String, Long> perPod, Map<String, Long> perContainer) {

    ClaimAllocatable {
        containers = Set.copyOf(containers);
        mapped = Map.copyOf(mapped);
        perPod = Map.copyOf(perPod);
        perContainer = Map.copyOf(perContainer);
    }

    /** The pod's entries, in the order of its status; none when the scheduler wrote none. */
    static List<ClaimAllocatable> of(Pod pod) {
        List<ClaimAllocatable> claims = new ArrayList<>();
        if (pod.getStatus() == null || pod.getStatus().getNodeAllocatableResourceClaimStatuses() == null) {
            return claims;
        }
        for (NodeAllocatableResourceClaimStatus status : pod.getStatus().getNodeAllocatableResourceClaimStatuses()) {
            Map<String, Long> mapped = new HashMap<>();
            for (NodeAllocatableMappedResources mapping : orEmpty(status.getMapping())) {
                if (mapping.getQuantity() != null) {
                    mapped.merge(mapping.getName(), units(mapping.getName(), mapping.getQuantity()), Long::sum);
                }
            }
            Map<String, Long> perPod = new HashMap<>();
            Map<String, Long> perContainer = new HashMap<>();
            for (NodeAllocatableOverheadResources overhead : orEmpty(status.getOverhead())) {
                if (overhead.getPerPod() != null) {
                    perPod.merge(overhead.getName(), units(overhead.getName(), overhead.getPerPod()), Long::sum);
                }
                if (overhead.getPerContainer() != null) {
                    perContainer.merge(overhead.getName(), units(overhead.getName(), overhead.getPerContainer()),
                            Long::sum);
                }
            }
            claims.add(new ClaimAllocatable(status.getResourceClaimName(),
                    new LinkedHashSet<>(orEmpty(status.getContainers())), mapped, perPod, perContainer));
        }
        return claims;
    }

    /** The mapped amount and the pod's overhead together: what the claim adds once, whoever uses it. */
    long shared(String resource) {
        return mapped.getOrDefault(resource, 0L) + perPod.getOrDefault(resource, 0L);
    }

    long perContainer(String resource) {
        return perContainer.getOrDefault(resource, 0L);
    }

    /** Whether the claim adds anything at all. */
    boolean addsResources() {
        return !mapped.isEmpty() || !perPod.isEmpty() || !perContainer.isEmpty();
    }

    private static long units(String resource, io.fabric8.kubernetes.api.model.Quantity quantity) {
        return PodResourceConfig.units(resource, Quantity.fromFabric8(quantity));
    }

    private static <T> List<T> orEmpty(List<T> list) {
        return list == null ? List.of() : list;
    }
}
