package io.kdra.cluster.kubelet;

import java.util.Map;

/**
 * What one ResourceClaim of a pod adds to the pod's and its containers' node resources (KEP-5517, gate
 * DRANodeAllocatableResources): the sum over the claim's allocated devices of their {@code nodeAllocatableResources}.
 * Amounts are in the kubelet's units: millicores for {@code cpu}, bytes for memory and hugepages.
 *
 * @param podClaimName the claim's name in the pod ({@code spec.resourceClaims[].name}), as containers reference it
 * @param mapped the mappings' amounts by resource ({@code deviceMultiplier} per device, or {@code capacityMultiplier}
 *     times the device's capacity under {@code capacityKey})
 * @param perPod the overhead counted once for the pod, by resource
 * @param perContainer the overhead counted for each container that references the claim, by resource
 */
record ClaimAllocatable(String podClaimName, Map<String, Long> mapped, Map<String, Long> perPod,
        Map<String, Long> perContainer) {

    ClaimAllocatable {
        mapped = Map.copyOf(mapped);
        perPod = Map.copyOf(perPod);
        perContainer = Map.copyOf(perContainer);
    }

    /** The mapped amount and the pod's overhead together: what the claim adds once, whoever uses it. */
    long shared(String resource) {
        return mapped.getOrDefault(resource, 0L) + perPod.getOrDefault(resource, 0L);
    }

    long perContainer(String resource) {
        return perContainer.getOrDefault(resource, 0L);
    }
}
