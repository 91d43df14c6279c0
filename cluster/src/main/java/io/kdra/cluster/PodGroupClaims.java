package io.kdra.cluster;

import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimConsumerReference;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimConsumerReferenceBuilder;
import io.fabric8.kubernetes.api.model.scheduling.v1beta1.PodGroup;
import io.fabric8.kubernetes.api.model.scheduling.v1beta1.PodGroupResourceClaim;
import io.fabric8.kubernetes.api.model.scheduling.v1beta1.PodGroupResourceClaimStatus;
import java.util.List;
import java.util.Objects;

/**
 * The rules of claims shared by a PodGroup's pods (KEP-5729, DRAWorkloadResourceClaims) that the resourceclaim
 * controller, the scheduler, the kubelet and the device-taint eviction controller share. A pod is in the group its
 * {@code spec.schedulingGroup.podGroupName} names; a pod claim is the group's when name, claim name and template name
 * all equal one of the group's {@code spec.resourceClaims}. Such a claim is reserved for the PodGroup
 * ({@code reservedFor} entry {@code scheduling.k8s.io/podgroups}) instead of for each pod, and a claim made from its
 * template is generated once for the group, owned by the PodGroup.
 */
public final class PodGroupClaims {

    public static final String API_GROUP = "scheduling.k8s.io";
    public static final String RESOURCE = "podgroups";
    public static final String API_VERSION = API_GROUP + "/v1beta1";
    public static final String KIND = "PodGroup";

    private PodGroupClaims() {}

    /** @return the name of the pod's PodGroup, or null when the pod is in none */
    public static String podGroupName(Pod pod) {
        return pod.getSpec() == null || pod.getSpec().getSchedulingGroup() == null ? null
                : pod.getSpec().getSchedulingGroup().getPodGroupName();
    }

    /** @return the group's claim that the pod's claim matches exactly, or null: the pod's own claim */
    public static PodGroupResourceClaim matching(PodGroup group, PodResourceClaim podClaim) {
        if (group == null || group.getSpec() == null || group.getSpec().getResourceClaims() == null) {
            return null;
        }
        for (PodGroupResourceClaim groupClaim : group.getSpec().getResourceClaims()) {
            if (Objects.equals(groupClaim.getName(), podClaim.getName())
                    && Objects.equals(groupClaim.getResourceClaimName(), podClaim.getResourceClaimName())
                    && Objects.equals(groupClaim.getResourceClaimTemplateName(),
                            podClaim.getResourceClaimTemplateName())) {
                return groupClaim;
            }
        }
        return null;
    }

    /** @return the ResourceClaim the group's claim stands for, or null while its generated claim is not recorded */
    public static String claimName(PodGroup group, PodGroupResourceClaim groupClaim) {
        if (groupClaim.getResourceClaimName() != null) {
            return groupClaim.getResourceClaimName();
        }
        List<PodGroupResourceClaimStatus> statuses = group.getStatus() == null ? null
                : group.getStatus().getResourceClaimStatuses();
        for (PodGroupResourceClaimStatus status : statuses == null ? List.<PodGroupResourceClaimStatus>of() : statuses) {
            if (groupClaim.getName().equals(status.getName())) {
                return status.getResourceClaimName();
            }
        }
        return null;
    }

    /** @return whether the claim is in the group's namespace and reserved for the group */
    public static boolean isReservedFor(ResourceClaim claim, PodGroup group) {
        return Objects.equals(claim.getMetadata().getNamespace(), group.getMetadata().getNamespace())
                && reservedForGroup(claim, group.getMetadata().getName());
    }

    /**
     * Whether the claim is reserved for the pod's PodGroup: as for the kubelet upstream, the name in the reservation
     * must equal the pod's PodGroup name (a PodGroup cannot be replaced while it has pods).
     */
    public static boolean isReservedForGroupOf(ResourceClaim claim, Pod pod) {
        String group = podGroupName(pod);
        return group != null && Objects.equals(claim.getMetadata().getNamespace(), pod.getMetadata().getNamespace())
                && reservedForGroup(claim, group);
    }

    private static boolean reservedForGroup(ResourceClaim claim, String groupName) {
        List<ResourceClaimConsumerReference> reservedFor = claim.getStatus() == null ? null
                : claim.getStatus().getReservedFor();
        for (ResourceClaimConsumerReference consumer : reservedFor == null
                ? List.<ResourceClaimConsumerReference>of() : reservedFor) {
            if (isPodGroup(consumer) && groupName.equals(consumer.getName())) {
                return true;
            }
        }
        return false;
    }

    public static boolean isPodGroup(ResourceClaimConsumerReference consumer) {
        return API_GROUP.equals(consumer.getApiGroup()) && RESOURCE.equals(consumer.getResource());
    }

    /** @return whether the claim was generated for the pod's PodGroup (the group of that name is its controller) */
    public static boolean isForGroupOf(ResourceClaim claim, Pod pod) {
        OwnerReference owner = controller(claim);
        return owner != null && KIND.equals(owner.getKind()) && API_GROUP.equals(group(owner.getApiVersion()))
                && owner.getName().equals(podGroupName(pod));
    }

    /** @return whether the claim was generated for the group: it is the group's controller */
    public static boolean isForGroup(ResourceClaim claim, PodGroup group) {
        OwnerReference owner = controller(claim);
        return owner != null && Objects.equals(owner.getUid(), group.getMetadata().getUid())
                && Objects.equals(claim.getMetadata().getNamespace(), group.getMetadata().getNamespace());
    }

    /** @return the PodGroup that controls a generated claim, or null */
    public static OwnerReference owningGroup(ResourceClaim claim) {
        OwnerReference owner = controller(claim);
        return owner != null && KIND.equals(owner.getKind()) && API_GROUP.equals(group(owner.getApiVersion()))
                ? owner : null;
    }

    public static ResourceClaimConsumerReference consumer(PodGroup group) {
        return new ResourceClaimConsumerReferenceBuilder().withApiGroup(API_GROUP).withResource(RESOURCE)
                .withName(group.getMetadata().getName()).withUid(group.getMetadata().getUid()).build();
    }

    private static OwnerReference controller(ResourceClaim claim) {
        List<OwnerReference> owners = claim.getMetadata().getOwnerReferences();
        for (OwnerReference owner : owners == null ? List.<OwnerReference>of() : owners) {
            if (Boolean.TRUE.equals(owner.getController())) {
                return owner;
            }
        }
        return null;
    }

    private static String group(String apiVersion) {
        int slash = apiVersion == null ? -1 : apiVersion.indexOf('/');
        return slash < 0 ? "" : apiVersion.substring(0, slash);
    }
}
