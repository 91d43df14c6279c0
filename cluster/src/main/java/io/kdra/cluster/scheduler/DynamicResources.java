package io.kdra.cluster.scheduler;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.NodeSelector;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodResourceClaim;
import io.fabric8.kubernetes.api.model.PodResourceClaimStatus;
import io.fabric8.kubernetes.api.model.resource.v1.AllocatedDeviceStatus;
import io.fabric8.kubernetes.api.model.resource.v1.AllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequest;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceSubRequest;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimConsumerReference;
import io.fabric8.kubernetes.api.model.scheduling.v1beta1.PodGroup;
import io.fabric8.kubernetes.api.model.scheduling.v1beta1.PodGroupResourceClaim;
import io.kdra.allocator.AllocationException;
import io.kdra.cluster.PodGroupClaims;
import io.kdra.allocator.AllocationOutcome;
import io.kdra.allocator.StructuredAllocator;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * The scheduler's DynamicResources plugin (upstream {@code pkg/scheduler/framework/plugins/dynamicresources}): finds a
 * pod's ResourceClaims, checks that allocated ones can be used on a node and allocates the others together with the
 * structured allocator. Messages are upstream's. Runs on the scheduling thread.
 */
final class DynamicResources {

    static final String PLUGIN = "DynamicResources";
    static final String FINALIZER = "resource.kubernetes.io/delete-protection";
    static final int RESERVED_FOR_MAX = 256;
    static final String NOT_AVAILABLE_ON_NODE = "resourceclaim not available on the node";
    static final String INVALID_POOLS = "invalid resource pools were encountered";

    private final StructuredAllocator allocator;
    private final SchedulerCache cache;
    private final boolean bindingConditions;
    private final Duration bindingTimeout;

    DynamicResources(StructuredAllocator allocator, SchedulerCache cache, Duration bindingTimeout) {
        this.allocator = allocator;
        this.cache = cache;
        this.bindingConditions = allocator.features().deviceBindingConditions()
                && allocator.features().resourceClaimDeviceStatus();
        this.bindingTimeout = bindingTimeout;
    }

    boolean bindingConditionsEnabled() {
        return bindingConditions;
    }

    /** The pod's claims as far as they exist, or why not all of them do (then {@code claims} is partial). */
    record PodClaims(List<ResourceClaim> claims, Set<String> keys, String problem) {}

    /** Upstream's foreachPodResourceClaim: every claim must exist, not be deleted, and be the pod's if generated. */
    PodClaims podClaims(Pod pod) {
        String namespace = pod.getMetadata().getNamespace();
        List<ResourceClaim> claims = new ArrayList<>();
        Set<String> keys = new LinkedHashSet<>();
        for (PodResourceClaim podClaim : Lists.orEmpty(pod.getSpec().getResourceClaims())) {
            String name;
            boolean generated;
            if (podClaim.getResourceClaimName() != null) {
                name = podClaim.getResourceClaimName();
                generated = false;
            } else if (podClaim.getResourceClaimTemplateName() != null) {
                PodResourceClaimStatus status = statusOf(pod, podClaim.getName());
                if (status == null) {
                    return new PodClaims(claims, keys, String.format("pod \"%s/%s\": ResourceClaim not created yet",
                            namespace, pod.getMetadata().getName()));
                }
                if (status.getResourceClaimName() == null) {
                    continue;
                }
                name = status.getResourceClaimName();
                generated = true;
            } else {
                return new PodClaims(claims, keys, String.format("pod \"%s/%s\", spec.resourceClaim \"%s\": none of"
                        + " the supported fields are set", namespace, pod.getMetadata().getName(), podClaim.getName()));
            }
            String key = SchedulerCache.key(namespace, name);
            keys.add(key);
            ResourceClaim claim = cache.claim(key);
            if (claim == null) {
                return new PodClaims(claims, keys,
                        String.format("resourceclaim.resource.k8s.io \"%s\" not found", name));
            }
            if (claim.getMetadata().getDeletionTimestamp() != null) {
                return new PodClaims(claims, keys, String.format("resourceclaim \"%s\" is being deleted", name));
            }
            if (generated && !controlledBy(claim, pod) && !generatedForGroupOf(claim, pod, podClaim)) {
                return new PodClaims(claims, keys, String.format("ResourceClaim %s/%s was not created for pod %s/%s"
                        + " (pod is not owner)", namespace, name, namespace, pod.getMetadata().getName()));
            }
            claims.add(claim);
        }
        return new PodClaims(claims, keys, null);
    }

    /** A claim generated for the pod's PodGroup from the group claim that the pod's claim matches. */
    private boolean generatedForGroupOf(ResourceClaim claim, Pod pod, PodResourceClaim podClaim) {
        PodGroup group = cache.podGroupOf(pod);
        return PodGroupClaims.matching(group, podClaim) != null && PodGroupClaims.isForGroup(claim, group);
    }

    /**
     * Who a claim is reserved for when the pod uses it: the pod's PodGroup when the pod's claim matches one of the
     * group's (KEP-5729), else the pod.
     */
    static ResourceClaimConsumerReference consumer(SchedulerCache cache, Pod pod, ResourceClaim claim) {
        PodGroup group = cache.podGroupOf(pod);
        for (PodResourceClaim podClaim : Lists.orEmpty(pod.getSpec().getResourceClaims())) {
            PodGroupResourceClaim groupClaim = PodGroupClaims.matching(group, podClaim);
            if (groupClaim == null) {
                continue;
            }
            String name = groupClaim.getResourceClaimName();
            if (name == null) {
                PodResourceClaimStatus status = statusOf(pod, podClaim.getName());
                name = status == null ? null : status.getResourceClaimName();
            }
            if (claim.getMetadata().getName().equals(name)) {
                return PodGroupClaims.consumer(group);
            }
        }
        return new ResourceClaimConsumerReference(null, pod.getMetadata().getName(), "pods",
                pod.getMetadata().getUid());
    }

    /** What PreFilter learned, used by Filter, PostFilter and Reserve of the same cycle. */
    static final class CycleState {
        final List<ResourceClaim> claims;
        final NodeSelector[] availableOnNodes;
        final List<ResourceClaim> toAllocate = new ArrayList<>();
        final Set<Integer> unavailable = new LinkedHashSet<>();

        CycleState(List<ResourceClaim> claims) {
            this.claims = claims;
            this.availableOnNodes = new NodeSelector[claims.size()];
        }
    }

    /** Either a state, an unschedulable reason, or an error. */
    record PreFilterResult(CycleState state, String unschedulable, String error) {}

    PreFilterResult preFilter(Pod pod) {
        PodClaims podClaims = podClaims(pod);
        if (podClaims.problem() != null) {
            return new PreFilterResult(null, podClaims.problem(), null);
        }
        CycleState state = new CycleState(podClaims.claims());
        for (int i = 0; i < state.claims.size(); i++) {
            ResourceClaim claim = state.claims.get(i);
            AllocationResult allocation = allocationOf(claim);
            if (allocation != null) {
                if (!reservedFor(claim, pod) && reservations(claim) >= RESERVED_FOR_MAX) {
                    return new PreFilterResult(null, "resourceclaim in use", null);
                }
                state.availableOnNodes[i] = allocation.getNodeSelector();
                continue;
            }
            state.toAllocate.add(claim);
            if (cache.hasInFlight(claim.getMetadata().getUid())) {
                return new PreFilterResult(null, String.format("resource claim %s is in the process of being"
                        + " allocated", SchedulerCache.key(claim)), null);
            }
            for (DeviceRequest request : Lists.orEmpty(claim.getSpec().getDevices().getRequests())) {
                PreFilterResult problem = checkRequest(claim, request);
                if (problem != null) {
                    return problem;
                }
            }
        }
        return new PreFilterResult(state, null, null);
    }

    private PreFilterResult checkRequest(ResourceClaim claim, DeviceRequest request) {
        if (request.getExactly() != null) {
            return checkClass(request.getExactly().getDeviceClassName(), request.getName());
        }
        if (!Lists.orEmpty(request.getFirstAvailable()).isEmpty()) {
            if (!allocator.features().prioritizedList()) {
                return new PreFilterResult(null, String.format("resource claim %s, request %s: has subrequests, but"
                        + " the DRAPrioritizedList feature is disabled", SchedulerCache.key(claim), request.getName()),
                        null);
            }
            for (DeviceSubRequest sub : request.getFirstAvailable()) {
                PreFilterResult problem = checkClass(sub.getDeviceClassName(), request.getName() + "/" + sub.getName());
                if (problem != null) {
                    return problem;
                }
            }
            return null;
        }
        return new PreFilterResult(null, String.format("resource claim %s, request %s: unknown request type",
                SchedulerCache.key(claim), request.getName()), null);
    }

    private PreFilterResult checkClass(String className, String requestName) {
        if (className == null || className.isEmpty()) {
            return new PreFilterResult(null, null, "request " + requestName + ": unsupported request type");
        }
        if (!cache.classes().containsKey(className)) {
            return new PreFilterResult(null,
                    String.format("request %s: device class %s does not exist", requestName, className), null);
        }
        return null;
    }

    /** The node passes, with the allocations of the claims to allocate; or why not; or an error. */
    record FilterResult(List<AllocationResult> allocations, String unschedulable, String error) {}

    FilterResult filter(CycleState state, NodeInfo node) {
        return filter(state, node, null);
    }

    /**
     * @param extendedClaim the node's special claim for extended resources, allocated together with the pod's own
     *     claims and last in the allocations; null for none
     */
    FilterResult filter(CycleState state, NodeInfo node, ResourceClaim extendedClaim) {
        boolean unavailable = false;
        for (int i = 0; i < state.claims.size(); i++) {
            NodeSelector selector = state.availableOnNodes[i];
            if (selector != null && !NodeFilters.matches(selector, node)) {
                state.unavailable.add(i);
                unavailable = true;
                continue;
            }
            ResourceClaim claim = state.claims.get(i);
            if (bindingConditions && allocationOf(claim) != null) {
                BindingState binding = bindingState(claim);
                if (binding.failure() != null || (!binding.ready() && timedOut(claim, Instant.now()))) {
                    state.unavailable.add(i);
                    unavailable = true;
                }
            }
        }
        List<AllocationResult> allocations = null;
        List<ResourceClaim> toAllocate = state.toAllocate;
        if (extendedClaim != null) {
            toAllocate = new ArrayList<>(state.toAllocate);
            toAllocate.add(extendedClaim);
        }
        if (!toAllocate.isEmpty()) {
            AllocationOutcome outcome;
            try {
                outcome = allocator.allocate(toAllocate, node.node(), cache.inventory(allocator),
                        cache.classes(), cache.allocatedState());
            } catch (AllocationException e) {
                return new FilterResult(null, null, e.getMessage());
            }
            if (outcome instanceof AllocationOutcome.CannotAllocate cannot) {
                return new FilterResult(null, cannot.reason().startsWith(INVALID_POOLS) ? INVALID_POOLS
                        : AllocationOutcome.CANNOT_ALLOCATE_ALL_CLAIMS, null);
            }
            allocations = ((AllocationOutcome.Allocated) outcome).results();
        }
        if (unavailable) {
            return new FilterResult(null, NOT_AVAILABLE_ON_NODE, null);
        }
        return new FilterResult(allocations, null, null);
    }

    /**
     * Upstream's PostFilter: an allocated claim that kept the pod off every node and is used by no other pod is worth
     * deallocating, so that the next attempt can allocate it elsewhere.
     *
     * @return that claim, or null
     */
    ResourceClaim claimToDeallocate(CycleState state, Pod pod) {
        for (int index : state.unavailable) {
            ResourceClaim claim = state.claims.get(index);
            List<ResourceClaimConsumerReference> reserved = reservedForOf(claim);
            if (reserved.isEmpty() || reserved.size() == 1
                    && Objects.equals(reserved.get(0).getUid(), pod.getMetadata().getUid())) {
                return claim;
            }
        }
        return null;
    }

    /** Readiness of a claim's binding conditions (KEP-5007). */
    record BindingState(boolean ready, String failure) {}

    static BindingState bindingState(ResourceClaim claim) {
        AllocationResult allocation = allocationOf(claim);
        if (allocation == null || allocation.getDevices() == null) {
            return new BindingState(false, null);
        }
        for (DeviceRequestAllocationResult result : Lists.orEmpty(allocation.getDevices().getResults())) {
            if (Lists.orEmpty(result.getBindingConditions()).isEmpty()) {
                continue;
            }
            AllocatedDeviceStatus device = deviceStatus(claim, result);
            if (device == null) {
                return new BindingState(false, null);
            }
            for (String type : Lists.orEmpty(result.getBindingFailureConditions())) {
                Condition failed = condition(device, type);
                if (failed != null && "True".equals(failed.getStatus())) {
                    return new BindingState(false, String.format("claim %s binding failed: reason=%s, message=\"%s\"",
                            claim.getMetadata().getName(), Objects.toString(failed.getReason(), ""),
                            Objects.toString(failed.getMessage(), "")));
                }
            }
            for (String type : result.getBindingConditions()) {
                Condition condition = condition(device, type);
                if (condition == null || !"True".equals(condition.getStatus())) {
                    return new BindingState(false, null);
                }
            }
        }
        return new BindingState(true, null);
    }

    static boolean hasBindingConditions(ResourceClaim claim) {
        AllocationResult allocation = allocationOf(claim);
        return allocation != null && allocation.getDevices() != null
                && Lists.orEmpty(allocation.getDevices().getResults()).stream()
                        .anyMatch(result -> !Lists.orEmpty(result.getBindingConditions()).isEmpty());
    }

    /** Upstream's isClaimTimeout: the binding timeout counts from the allocation's timestamp. */
    boolean timedOut(ResourceClaim claim, Instant now) {
        AllocationResult allocation = allocationOf(claim);
        if (allocation == null || allocation.getAllocationTimestamp() == null || !hasBindingConditions(claim)) {
            return false;
        }
        try {
            return Instant.parse(allocation.getAllocationTimestamp()).plus(bindingTimeout).isBefore(now);
        } catch (DateTimeParseException e) {
            return false;
        }
    }

    static AllocationResult allocationOf(ResourceClaim claim) {
        return claim.getStatus() == null ? null : claim.getStatus().getAllocation();
    }

    static List<ResourceClaimConsumerReference> reservedForOf(ResourceClaim claim) {
        return claim.getStatus() == null ? List.of() : Lists.orEmpty(claim.getStatus().getReservedFor());
    }

    /** Reserved for the pod, or for its PodGroup. */
    static boolean reservedFor(ResourceClaim claim, Pod pod) {
        for (ResourceClaimConsumerReference reference : reservedForOf(claim)) {
            if (Objects.equals(reference.getUid(), pod.getMetadata().getUid())) {
                return true;
            }
        }
        return PodGroupClaims.isReservedForGroupOf(claim, pod);
    }

    private static int reservations(ResourceClaim claim) {
        return reservedForOf(claim).size();
    }

    private static PodResourceClaimStatus statusOf(Pod pod, String podClaimName) {
        if (pod.getStatus() == null) {
            return null;
        }
        for (PodResourceClaimStatus status : Lists.orEmpty(pod.getStatus().getResourceClaimStatuses())) {
            if (podClaimName.equals(status.getName())) {
                return status;
            }
        }
        return null;
    }

    private static boolean controlledBy(ResourceClaim claim, Pod pod) {
        for (OwnerReference owner : Lists.orEmpty(claim.getMetadata().getOwnerReferences())) {
            if (Boolean.TRUE.equals(owner.getController())) {
                return Objects.equals(owner.getUid(), pod.getMetadata().getUid());
            }
        }
        return false;
    }

    private static AllocatedDeviceStatus deviceStatus(ResourceClaim claim, DeviceRequestAllocationResult result) {
        for (AllocatedDeviceStatus device : Lists.orEmpty(claim.getStatus().getDevices())) {
            if (Objects.equals(device.getDriver(), result.getDriver()) && Objects.equals(device.getPool(),
                    result.getPool()) && Objects.equals(device.getDevice(), result.getDevice())) {
                return device;
            }
        }
        return null;
    }

    private static Condition condition(AllocatedDeviceStatus device, String type) {
        for (Condition condition : Lists.orEmpty(device.getConditions())) {
            if (type.equals(condition.getType())) {
                return condition;
            }
        }
        return null;
    }
}
