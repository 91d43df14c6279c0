package io.kdra.apiserver.registry;

import io.kdra.apiserver.api.KindRegistry;
import io.kdra.kube.FeatureGates;
import tools.jackson.databind.node.ObjectNode;

/**
 * The pod status fields that feature gates guard, dropped on writes while their gate is off unless the stored pod
 * already has them, as kube-apiserver's {@code dropDisabledPodStatusFields} does: the scheduler's
 * {@code nodeAllocatableResourceClaimStatuses} (DRANodeAllocatableResources).
 */
public final class PodStatusGates {

    private static final String NODE_ALLOCATABLE_CLAIM_STATUSES = "nodeAllocatableResourceClaimStatuses";

    private PodStatusGates() {}

    public static void register(KindRegistry.Builder kinds, FeatureGates gates) {
        if (!gates.enabled(FeatureGates.DRA_NODE_ALLOCATABLE_RESOURCES)) {
            kinds.disabledFields("", "Pod", PodStatusGates::dropNodeAllocatableClaimStatuses);
        }
    }

    private static void dropNodeAllocatableClaimStatuses(ObjectNode pod, ObjectNode old) {
        if (old != null && old.at("/status/" + NODE_ALLOCATABLE_CLAIM_STATUSES).size() > 0) {
            return;
        }
        if (pod.get("status") instanceof ObjectNode status) {
            status.remove(NODE_ALLOCATABLE_CLAIM_STATUSES);
        }
    }
}
