package io.kdra.cluster.scheduler;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.scheduling.v1beta1.PodGroup;
import io.kdra.cluster.PodGroupClaims;
import io.fabric8.kubernetes.api.model.resource.v1.AllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceTaintRule;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.kdra.allocator.AllocatedState;
import io.kdra.allocator.DeviceId;
import io.kdra.allocator.Inventory;
import io.kdra.allocator.StructuredAllocator;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the scheduler knows of the cluster, kept current from watch events and from its own writes (the assume cache
 * of kube-scheduler): unscheduled pods, nodes, claims, classes, slices, DeviceTaintRules and PodGroups, plus the devices taken by
 * allocated claims and by allocations still being written ("in flight"). Only the scheduling thread changes it; the
 * binder threads read claims through {@link #claim} and wait for claim changes through {@link #awaitClaimChange}.
 */
final class SchedulerCache {

    private static final Logger LOG = LoggerFactory.getLogger(SchedulerCache.class);

    private final Map<String, Pod> pods = new HashMap<>();
    private final TreeMap<String, NodeInfo> nodes = new TreeMap<>();
    private List<NodeInfo> nodeList;

    private final ConcurrentHashMap<String, ResourceClaim> claims = new ConcurrentHashMap<>();
    private final Object claimChanges = new Object();
    private final AtomicInteger claimWaiters = new AtomicInteger();
    private final AtomicLong claimVersion = new AtomicLong();

    /** How many allocations (claims and in-flight ones) hold each exclusively allocated device. */
    private final Map<DeviceId, Integer> exclusive = new HashMap<>();
    /** Allocations with shared devices (consumable capacity), by claim key or {@code inflight:<uid>}. */
    private final Map<String, AllocationResult> sharedAllocations = new LinkedHashMap<>();
    private AllocatedState sharedState = AllocatedState.NONE;
    private boolean sharedStale;
    private final Map<String, InFlight> inFlight = new HashMap<>();

    private final Map<String, DeviceClass> classes = new HashMap<>();
    private final Map<String, ResourceSlice> slices = new TreeMap<>();
    private final Map<String, DeviceTaintRule> taintRules = new TreeMap<>();
    /** Read by the binder threads too: which claims a PodGroup's pods share. */
    private final ConcurrentHashMap<String, PodGroup> podGroups = new ConcurrentHashMap<>();
    private Inventory inventory;

    /** An allocation the scheduler decided on and is writing. */
    record InFlight(String claimKey, AllocationResult allocation) {}

    static String key(HasMetadata object) {
        String namespace = object.getMetadata().getNamespace();
        return namespace == null ? object.getMetadata().getName() : namespace + "/" + object.getMetadata().getName();
    }

    static String key(String namespace, String name) {
        return namespace + "/" + name;
    }

    // --- pods

    void putPod(Pod pod) {
        pods.put(key(pod), pod);
    }

    void removePod(String key) {
        pods.remove(key);
    }

    Pod pod(String key) {
        return pods.get(key);
    }

    // --- nodes

    /** @return the previous state of the node, or null */
    NodeInfo putNode(NodeInfo info) {
        nodeList = null;
        return nodes.put(info.name(), info);
    }

    void removeNode(String name) {
        if (nodes.remove(name) != null) {
            nodeList = null;
        }
    }

    /** All nodes, sorted by name. */
    List<NodeInfo> nodes() {
        if (nodeList == null) {
            nodeList = List.copyOf(nodes.values());
        }
        return nodeList;
    }

    // --- claims

    ResourceClaim claim(String key) {
        return claims.get(key);
    }

    /** The cached claims of one namespace (a linear scan: the special extended-resource claim has no known name). */
    List<ResourceClaim> claimsIn(String namespace) {
        String prefix = namespace + "/";
        List<ResourceClaim> found = new ArrayList<>();
        claims.forEach((key, claim) -> {
            if (key.startsWith(prefix)) {
                found.add(claim);
            }
        });
        return found;
    }

    /**
     * Stores a claim unless the cache holds a newer version of it (one the scheduler wrote itself and whose watch
     * event is still on its way).
     *
     * @return the version it replaced (null when new), or {@code claim} itself when it was not newer
     */
    ResourceClaim putClaim(ResourceClaim claim) {
        String key = key(claim);
        ResourceClaim old = claims.get(key);
        if (old != null && sameObject(old, claim) && !newer(claim, old)) {
            return claim;
        }
        claims.put(key, claim);
        if (old != null) {
            account(key, old.getStatus() == null ? null : old.getStatus().getAllocation(), -1);
        }
        account(key, claim.getStatus() == null ? null : claim.getStatus().getAllocation(), +1);
        signalClaimChange();
        return old;
    }

    ResourceClaim removeClaim(String key) {
        ResourceClaim old = claims.remove(key);
        if (old != null) {
            account(key, old.getStatus() == null ? null : old.getStatus().getAllocation(), -1);
            signalClaimChange();
        }
        return old;
    }

    void addInFlight(String claimUid, String claimKey, AllocationResult allocation) {
        inFlight.put(claimUid, new InFlight(claimKey, allocation));
        account("inflight:" + claimUid, allocation, +1);
    }

    /** @return whether an allocation was in flight for the claim */
    boolean removeInFlight(String claimUid) {
        InFlight removed = inFlight.remove(claimUid);
        if (removed != null) {
            account("inflight:" + claimUid, removed.allocation(), -1);
        }
        return removed != null;
    }

    boolean hasInFlight(String claimUid) {
        return inFlight.containsKey(claimUid);
    }

    /** The devices allocated or being allocated. Valid until the cache changes next. */
    AllocatedState allocatedState() {
        if (sharedStale) {
            sharedState = AllocatedState.NONE.plus(sharedAllocations.values());
            sharedStale = false;
        }
        return new AllocatedState(exclusive.keySet(), sharedState.sharedDevices(), sharedState.consumedCapacity());
    }

    private void account(String owner, AllocationResult allocation, int delta) {
        if (allocation == null || allocation.getDevices() == null) {
            return;
        }
        boolean shared = false;
        for (DeviceRequestAllocationResult result : Lists.orEmpty(allocation.getDevices().getResults())) {
            if (Boolean.TRUE.equals(result.getAdminAccess())) {
                continue;
            }
            if (result.getShareID() != null) {
                shared = true;
                continue;
            }
            exclusive.merge(new DeviceId(result.getDriver(), result.getPool(), result.getDevice()), delta,
                    (count, change) -> count + change == 0 ? null : count + change);
        }
        if (shared) {
            if (delta > 0) {
                sharedAllocations.put(owner, allocation);
            } else {
                sharedAllocations.remove(owner);
            }
            sharedStale = true;
        }
    }

    /** Increases with every claim change; read it before checking claims, then {@link #awaitClaimChange}. */
    long claimVersion() {
        return claimVersion.get();
    }

    /** Waits until a claim changed after {@code seenVersion} was read, or the time is up. */
    void awaitClaimChange(long seenVersion, long millis) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        claimWaiters.incrementAndGet();
        try {
            synchronized (claimChanges) {
                long remaining;
                while (claimVersion.get() == seenVersion
                        && (remaining = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())) > 0) {
                    claimChanges.wait(remaining);
                }
            }
        } finally {
            claimWaiters.decrementAndGet();
        }
    }

    private void signalClaimChange() {
        claimVersion.incrementAndGet();
        if (claimWaiters.get() > 0) {
            synchronized (claimChanges) {
                claimChanges.notifyAll();
            }
        }
    }

    // --- classes, slices, DeviceTaintRules

    void putPodGroup(PodGroup group) {
        podGroups.put(key(group), group);
    }

    void removePodGroup(String key) {
        podGroups.remove(key);
    }

    /** @return the pod's PodGroup, or null when it is in none or the group is not known (yet) */
    PodGroup podGroupOf(Pod pod) {
        String name = PodGroupClaims.podGroupName(pod);
        return name == null ? null : podGroups.get(key(pod.getMetadata().getNamespace(), name));
    }

    void putClass(DeviceClass deviceClass) {
        classes.put(deviceClass.getMetadata().getName(), deviceClass);
    }

    void removeClass(String name) {
        classes.remove(name);
    }

    Map<String, DeviceClass> classes() {
        return classes;
    }

    void putSlice(ResourceSlice slice) {
        slices.put(slice.getMetadata().getName(), slice);
        inventory = null;
    }

    void removeSlice(String name) {
        if (slices.remove(name) != null) {
            inventory = null;
        }
    }

    /**
     * A device as the slices of a node publish it: the node's own slices and those not bound to one node; null when
     * none has it.
     */
    Device device(String node, String driver, String pool, String name) {
        for (ResourceSlice slice : slices.values()) {
            var spec = slice.getSpec();
            if (spec == null || !driver.equals(spec.getDriver()) || spec.getPool() == null
                    || !pool.equals(spec.getPool().getName())
                    || spec.getNodeName() != null && !spec.getNodeName().equals(node)) {
                continue;
            }
            for (Device device : Lists.orEmpty(spec.getDevices())) {
                if (name.equals(device.getName())) {
                    return device;
                }
            }
        }
        return null;
    }

    void putTaintRule(DeviceTaintRule rule) {
        taintRules.put(rule.getMetadata().getName(), rule);
        inventory = null;
    }

    void removeTaintRule(String name) {
        if (taintRules.remove(name) != null) {
            inventory = null;
        }
    }

    /** The allocator's view of the slices and rules, rebuilt only after they changed. */
    Inventory inventory(StructuredAllocator allocator) {
        if (inventory == null) {
            List<ResourceSlice> usable = new ArrayList<>(slices.size());
            for (ResourceSlice slice : slices.values()) {
                if (wellFormed(slice)) {
                    usable.add(slice);
                } else {
                    LOG.warn("ignoring ResourceSlice {}: it lacks spec.driver, spec.pool.name or a positive"
                            + " spec.pool.resourceSliceCount", slice.getMetadata().getName());
                }
            }
            inventory = allocator.inventory(usable, List.copyOf(taintRules.values()));
        }
        return inventory;
    }

    private static boolean wellFormed(ResourceSlice slice) {
        return slice.getSpec() != null && slice.getSpec().getDriver() != null && !slice.getSpec().getDriver().isEmpty()
                && slice.getSpec().getPool() != null && slice.getSpec().getPool().getName() != null
                && slice.getSpec().getPool().getResourceSliceCount() != null
                && slice.getSpec().getPool().getResourceSliceCount() > 0;
    }

    private static boolean sameObject(HasMetadata a, HasMetadata b) {
        return a.getMetadata().getUid() != null && a.getMetadata().getUid().equals(b.getMetadata().getUid());
    }

    /** resourceVersions of one server are ordered; kube-scheduler's assume cache compares them as numbers too. */
    static boolean newer(HasMetadata candidate, HasMetadata current) {
        try {
            return Long.parseLong(candidate.getMetadata().getResourceVersion())
                    > Long.parseLong(current.getMetadata().getResourceVersion());
        } catch (NumberFormatException e) {
            return true;
        }
    }
}
