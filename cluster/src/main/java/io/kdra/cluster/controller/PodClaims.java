package io.kdra.cluster.controller;

import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.PodResourceClaim;
import io.fabric8.kubernetes.api.model.PodResourceClaimStatus;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimConsumerReference;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The pod and claim rules the controllers share, ported from k8s.io/dynamic-resource-allocation/resourceclaim and
 * pkg/api/v1/pod: which claim a pod's entry names, whether a claim is the pod's, whether a pod is done.
 */
final class PodClaims {

    /** The finalizer the scheduler adds before it allocates; whoever deallocates removes it. */
    static final String DELETE_PROTECTION_FINALIZER = "resource.kubernetes.io/delete-protection";
    /** Marks a claim generated for a pod; its value is the pod's {@code spec.resourceClaims[].name}. */
    static final String POD_CLAIM_NAME_ANNOTATION = "resource.kubernetes.io/pod-claim-name";
    /** {@code ResourceClaimReservedForMaxSize}. */
    static final int RESERVED_FOR_MAX = 256;

    private PodClaims() {}

    /** What {@code resourceclaim.Name} resolves a pod's claim entry to. */
    record ClaimName(State state, String name, boolean checkOwner) {
        enum State {
            /** {@link #name()} is the claim to use */
            NAMED,
            /** the status says no claim is needed */
            NOT_NEEDED,
            /** generated from a template, but not recorded in the pod status yet */
            NOT_CREATED,
            /** neither a claim nor a template name: an API this code does not know */
            UNSUPPORTED
        }

        boolean named() {
            return state == State.NAMED;
        }
    }

    static ClaimName claimName(Pod pod, PodResourceClaim podClaim) {
        if (podClaim.getResourceClaimName() != null) {
            return new ClaimName(ClaimName.State.NAMED, podClaim.getResourceClaimName(), false);
        }
        if (podClaim.getResourceClaimTemplateName() == null) {
            return new ClaimName(ClaimName.State.UNSUPPORTED, null, false);
        }
        for (PodResourceClaimStatus status : claimStatuses(pod)) {
            if (podClaim.getName().equals(status.getName())) {
                return status.getResourceClaimName() == null
                        ? new ClaimName(ClaimName.State.NOT_NEEDED, null, true)
                        : new ClaimName(ClaimName.State.NAMED, status.getResourceClaimName(), true);
            }
        }
        return new ClaimName(ClaimName.State.NOT_CREATED, null, true);
    }

    static List<PodResourceClaim> podClaims(Pod pod) {
        return pod.getSpec() == null || pod.getSpec().getResourceClaims() == null ? List.of()
                : pod.getSpec().getResourceClaims();
    }

    static List<PodResourceClaimStatus> claimStatuses(Pod pod) {
        return pod.getStatus() == null || pod.getStatus().getResourceClaimStatuses() == null ? List.of()
                : pod.getStatus().getResourceClaimStatuses();
    }

    /** {@code resourceclaim.IsForPod}: the claim is in the pod's namespace and the pod is its controller. */
    static boolean isForPod(Pod pod, ResourceClaim claim) {
        return Objects.equals(pod.getMetadata().getNamespace(), claim.getMetadata().getNamespace())
                && pod.getMetadata().getUid() != null
                && pod.getMetadata().getUid().equals(controllerUid(claim.getMetadata().getOwnerReferences()));
    }

    /** @return the uid of the owner marked as controller, or null */
    static String controllerUid(List<OwnerReference> owners) {
        OwnerReference owner = controller(owners);
        return owner == null ? null : owner.getUid();
    }

    static OwnerReference controller(List<OwnerReference> owners) {
        if (owners != null) {
            for (OwnerReference owner : owners) {
                if (Boolean.TRUE.equals(owner.getController())) {
                    return owner;
                }
            }
        }
        return null;
    }

    /** @return the pod that controls a generated claim, or null: a controller reference of kind v1 Pod */
    static OwnerReference owningPod(ResourceClaim claim) {
        OwnerReference owner = controller(claim.getMetadata().getOwnerReferences());
        return owner != null && "v1".equals(owner.getApiVersion()) && "Pod".equals(owner.getKind()) ? owner : null;
    }

    static List<ResourceClaimConsumerReference> reservedFor(ResourceClaim claim) {
        return claim.getStatus() == null || claim.getStatus().getReservedFor() == null ? List.of()
                : claim.getStatus().getReservedFor();
    }

    static boolean isReservedForPod(Pod pod, ResourceClaim claim) {
        for (ResourceClaimConsumerReference consumer : reservedFor(claim)) {
            if (pod.getMetadata().getUid().equals(consumer.getUid())) {
                return true;
            }
        }
        return false;
    }

    static boolean canBeReserved(ResourceClaim claim) {
        return reservedFor(claim).size() < RESERVED_FOR_MAX;
    }

    static boolean allocated(ResourceClaim claim) {
        return claim.getStatus() != null && claim.getStatus().getAllocation() != null;
    }

    static boolean isTerminal(Pod pod) {
        String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
        return "Succeeded".equals(phase) || "Failed".equals(phase);
    }

    static boolean scheduled(Pod pod) {
        return pod.getSpec() != null && pod.getSpec().getNodeName() != null && !pod.getSpec().getNodeName().isEmpty();
    }

    static boolean deleted(Pod pod) {
        return pod.getMetadata().getDeletionTimestamp() != null;
    }

    /** {@code isPodDone}: none of its containers runs or ever will: terminal, or deleted before it was scheduled. */
    static boolean isDone(Pod pod) {
        return isTerminal(pod) || deleted(pod) && !scheduled(pod);
    }

    static ObjectReference reference(Pod pod) {
        return new ObjectReferenceBuilder().withApiVersion("v1").withKind("Pod")
                .withNamespace(pod.getMetadata().getNamespace()).withName(pod.getMetadata().getName())
                .withUid(pod.getMetadata().getUid()).build();
    }

    static String now() {
        return DateTimeFormatter.ISO_INSTANT.format(Instant.now().truncatedTo(ChronoUnit.SECONDS));
    }

    /**
     * {@code UpdatePodCondition}: the conditions with the given one set; the transition time changes only when the
     * status does.
     *
     * @return null when the condition is already there as given
     */
    static List<PodCondition> withCondition(List<PodCondition> conditions, String type, String status, String reason,
            String message) {
        List<PodCondition> result = new ArrayList<>();
        boolean found = false;
        for (PodCondition condition : conditions == null ? List.<PodCondition>of() : conditions) {
            if (!type.equals(condition.getType())) {
                result.add(condition);
                continue;
            }
            found = true;
            if (status.equals(condition.getStatus()) && Objects.equals(reason, condition.getReason())
                    && Objects.equals(message, condition.getMessage())) {
                return null;
            }
            String transition = status.equals(condition.getStatus()) ? condition.getLastTransitionTime() : now();
            result.add(new PodConditionBuilder(condition).withStatus(status).withReason(reason).withMessage(message)
                    .withLastTransitionTime(transition).withLastProbeTime(null).build());
        }
        if (!found) {
            result.add(new PodConditionBuilder().withType(type).withStatus(status).withReason(reason)
                    .withMessage(message).withLastTransitionTime(now()).build());
        }
        return result;
    }
}
