package io.kdra.cluster.controller;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceTaint;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceTaintRule;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceToleration;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimConsumerReference;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.kdra.cluster.EventRecorder;
import io.kdra.cluster.PodGroupClaims;
import io.kdra.cluster.Timing;
import io.kdra.kube.FeatureGates;
import io.kdra.kube.taint.DeviceTaints;
import io.kdra.kube.taint.DeviceTolerations;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * kube-controller-manager's device-taint-eviction controller ({@code pkg/controller/devicetainteviction}, 1.35+):
 * pods whose allocated devices carry a {@code NoExecute} taint they do not tolerate — from the device in its
 * ResourceSlice or from a matching DeviceTaintRule — get the condition {@code DisruptionTarget=True} (reason
 * {@code DeletionByDeviceTaintManager}) and are deleted, at the taint's {@code timeAdded} plus the smallest
 * {@code tolerationSeconds} of the tolerations that match it for a time. Each DeviceTaintRule gets the condition
 * {@code EvictionInProgress} in its status. All evaluation happens in the informer handlers on in-memory state; the
 * API calls happen in the workers.
 */
public final class DeviceTaintEvictionController
        extends InformerController<DeviceTaintEvictionController, DeviceTaintEvictionController.Work> {

    /** The DeviceTaintRule version this controller reads and writes; v1 once the API server serves it. */
    public static final String DEVICE_TAINT_RULE_VERSION = "v1beta2";
    /** The event source and field manager, as upstream. */
    static final String COMPONENT = "device-taint-eviction";
    static final String CONDITION_EVICTION_IN_PROGRESS = "EvictionInProgress";

    private static final Logger LOG = LoggerFactory.getLogger(DeviceTaintEvictionController.class);
    private static final String NO_EXECUTE = "NoExecute";
    private static final String NONE = "None";
    static final ResourceDefinitionContext DEVICE_TAINT_RULES = new ResourceDefinitionContext.Builder()
            .withGroup("resource.k8s.io").withVersion(DEVICE_TAINT_RULE_VERSION).withKind("DeviceTaintRule")
            .withPlural("devicetaintrules").withNamespaced(false).build();

    private record PodRef(String namespace, String name, String uid) {}

    private record PoolId(String driver, String pool) {}

    private record ClaimId(String namespace, String name) {}

    sealed interface Work permits PodWork, RuleWork {}

    record PodWork(PodRef pod) implements Work {}

    record RuleWork(String name, String uid) implements Work {}

    /** Where a taint comes from: a rule (by uid) or one taint entry of a device in a slice. */
    private record TaintSource(String ruleName, String ruleUid, String slice, String driver, String pool,
            String device, int index, DeviceTaint taint) {
        String sortKey() {
            return ruleName != null ? "0/" + ruleName : "1/" + driver + "/" + pool + "/" + device + "/" + index;
        }
    }

    /** When pods of a claim must go, and every taint that makes them. */
    private record Eviction(Instant when, List<TaintSource> reasons) {}

    private record AllocatedClaim(ResourceClaim claim, Eviction eviction) {}

    /** The slices of one pool; only those of the newest generation count. */
    private static final class Pool {
        final Map<String, ResourceSlice> slices = new HashMap<>();

        long maxGeneration() {
            long max = Long.MIN_VALUE;
            for (ResourceSlice slice : slices.values()) {
                max = Math.max(max, generation(slice));
            }
            return max;
        }

        Map<String, List<DeviceTaint>> noExecuteTaints() {
            Map<String, List<DeviceTaint>> taints = new HashMap<>();
            long max = maxGeneration();
            for (ResourceSlice slice : slices.values()) {
                if (generation(slice) != max || slice.getSpec().getDevices() == null) {
                    continue;
                }
                for (Device device : slice.getSpec().getDevices()) {
                    for (DeviceTaint taint : device.getTaints() == null ? List.<DeviceTaint>of() : device.getTaints()) {
                        if (NO_EXECUTE.equals(taint.getEffect())) {
                            taints.computeIfAbsent(device.getName(), d -> new ArrayList<>()).add(taint);
                        }
                    }
                }
            }
            return taints;
        }

        /** @return the slice holding the device in the newest generation, or null */
        ResourceSlice sliceOf(String deviceName) {
            long max = maxGeneration();
            for (ResourceSlice slice : slices.values()) {
                if (generation(slice) == max && slice.getSpec().getDevices() != null) {
                    for (Device device : slice.getSpec().getDevices()) {
                        if (deviceName.equals(device.getName())) {
                            return slice;
                        }
                    }
                }
            }
            return null;
        }

        private static long generation(ResourceSlice slice) {
            Long generation = slice.getSpec().getPool().getGeneration();
            return generation == null ? 0 : generation;
        }
    }

    private final Duration ruleStatusPeriod;
    private final SharedIndexInformer<Pod> pods;
    private final EventRecorder events;
    /** Whether claims are reserved for PodGroups, whose pods then use them (KEP-5729). */
    private final boolean podGroupClaims;

    // state, guarded by this
    private final Map<PoolId, Pool> pools = new HashMap<>();
    private final Map<ClaimId, AllocatedClaim> allocatedClaims = new HashMap<>();
    private final Map<String, DeviceTaintRule> rules = new LinkedHashMap<>();
    private final Map<PodRef, Eviction> deletePodAt = new HashMap<>();
    private final Map<String, Long> evictedByRule = new HashMap<>();

    /**
     * A controller with informers of its own.
     *
     * @param timing {@link Timing#deviceTaintRuleStatusPeriod()} spaces a rule's status updates
     */
    public DeviceTaintEvictionController(KubernetesClient client, FeatureGates gates, Timing timing) {
        this(new SharedInformers(client), true, gates, timing);
    }

    /** A controller on shared informers, started and closed by their owner. */
    public DeviceTaintEvictionController(SharedInformers informers, FeatureGates gates, Timing timing) {
        this(informers, false, gates, timing);
    }

    private DeviceTaintEvictionController(SharedInformers informers, boolean ownsInformers, FeatureGates gates,
            Timing timing) {
        super(informers, ownsInformers, COMPONENT, 2);
        this.ruleStatusPeriod = timing.deviceTaintRuleStatusPeriod();
        this.events = EventRecorder.ownThread(client, COMPONENT);
        this.pods = informers.informer(Pod.class);
        this.podGroupClaims = gates.enabled(FeatureGates.GENERIC_WORKLOAD)
                && gates.enabled(FeatureGates.DRA_WORKLOAD_RESOURCE_CLAIMS);
        informers.informer(ResourceClaim.class).addEventHandler(handler(this::handleClaimChange));
        pods.addEventHandler(handler(this::handlePodChange));
        informers.informer(ResourceSlice.class).addEventHandler(handler(this::handleSliceChange));
        if (gates.enabled(FeatureGates.DRA_DEVICE_TAINT_RULES)) {
            Function<GenericKubernetesResource, DeviceTaintRule> typed =
                    generic -> generic == null ? null
                            : client.getKubernetesSerialization().convertValue(generic, DeviceTaintRule.class);
            informers.informer(DEVICE_TAINT_RULES).addEventHandler(
                    handler((GenericKubernetesResource oldRule, GenericKubernetesResource newRule) ->
                            handleRuleChange(typed.apply(oldRule), typed.apply(newRule))));
        }
    }

    /** Old and new state of an object; null for none (added, deleted). */
    private interface Change<T> {
        void apply(T oldObject, T newObject);
    }

    /** Every change is applied under the controller's lock, in the order its informer saw it. */
    private <T> ResourceEventHandler<T> handler(Change<T> change) {
        return new ResourceEventHandler<>() {
            @Override
            public void onAdd(T object) {
                synchronized (DeviceTaintEvictionController.this) {
                    change.apply(null, object);
                }
            }

            @Override
            public void onUpdate(T oldObject, T newObject) {
                synchronized (DeviceTaintEvictionController.this) {
                    change.apply(oldObject, newObject);
                }
            }

            @Override
            public void onDelete(T object, boolean finalStateUnknown) {
                synchronized (DeviceTaintEvictionController.this) {
                    change.apply(object, null);
                }
            }
        };
    }

    /**
     * Whether the claim's allocation has reached the controller's state. Its informers lag behind the API, and a rule
     * with effect None reports what the controller knew when the rule came, once (as upstream's).
     */
    synchronized boolean knowsAllocation(String namespace, String claim) {
        return allocatedClaims.containsKey(new ClaimId(namespace, claim));
    }

    @Override
    public void close() {
        super.close();
        events.close();
    }

    // ---- event handling (under the lock) ----

    private void handleClaimChange(ResourceClaim oldClaim, ResourceClaim newClaim) {
        ResourceClaim claim = newClaim != null ? newClaim : oldClaim;
        ClaimId id = new ClaimId(claim.getMetadata().getNamespace(), claim.getMetadata().getName());
        if (newClaim == null) {
            allocatedClaims.remove(id);
            handlePods(claim);
            return;
        }
        if (oldClaim == null) {
            if (PodClaims.allocated(claim)) {
                allocatedClaims.put(id, new AllocatedClaim(claim, claimEviction(claim, null)));
                handlePods(claim);
            }
            return;
        }
        if (!Objects.equals(oldClaim.getMetadata().getUid(), newClaim.getMetadata().getUid())) {
            handleClaimChange(oldClaim, null);
            handleClaimChange(null, newClaim);
            return;
        }
        boolean wasAllocated = PodClaims.allocated(oldClaim);
        boolean isAllocated = PodClaims.allocated(newClaim);
        if (!wasAllocated && !isAllocated) {
            return;
        }
        if (!isAllocated) {
            allocatedClaims.remove(id);
        } else if (!wasAllocated) {
            allocatedClaims.put(id, new AllocatedClaim(newClaim, claimEviction(newClaim, null)));
        } else {
            // the allocation is immutable: the eviction time stays
            AllocatedClaim known = allocatedClaims.get(id);
            allocatedClaims.put(id, new AllocatedClaim(newClaim,
                    known == null ? claimEviction(newClaim, null) : known.eviction()));
        }
        if (!PodClaims.reservedFor(oldClaim).equals(PodClaims.reservedFor(newClaim))) {
            handlePods(oldClaim);
        }
        handlePods(newClaim);
    }

    private void handlePodChange(Pod oldPod, Pod newPod) {
        if (newPod == null) {
            cancelEviction(podRef(oldPod), false);
            return;
        }
        // pods change often; only the node and the claim statuses matter here (this also keeps the pod from
        // being queued again by the condition this controller adds)
        if (oldPod != null && Objects.equals(oldPod.getSpec().getNodeName(), newPod.getSpec().getNodeName())
                && PodClaims.claimStatuses(oldPod).equals(PodClaims.claimStatuses(newPod))) {
            return;
        }
        handlePod(newPod);
    }

    private void handleSliceChange(ResourceSlice oldSlice, ResourceSlice newSlice) {
        ResourceSlice slice = newSlice != null ? newSlice : oldSlice;
        PoolId id = new PoolId(slice.getSpec().getDriver(), slice.getSpec().getPool().getName());
        Pool pool = pools.computeIfAbsent(id, p -> new Pool());
        Map<String, List<DeviceTaint>> before = pool.noExecuteTaints();
        if (oldSlice != null) {
            pool.slices.remove(oldSlice.getMetadata().getName());
        }
        if (newSlice != null) {
            pool.slices.put(newSlice.getMetadata().getName(), newSlice);
        }
        if (pool.slices.isEmpty()) {
            pools.remove(id);
        }
        Map<String, List<DeviceTaint>> after = pool.noExecuteTaints();
        if (before.isEmpty() && after.isEmpty()) {
            return;
        }
        Set<String> modified = new HashSet<>();
        Set<String> devices = new HashSet<>(before.keySet());
        devices.addAll(after.keySet());
        for (String device : devices) {
            if (!Objects.equals(before.get(device), after.get(device))) {
                modified.add(device);
            }
        }
        for (Map.Entry<ClaimId, AllocatedClaim> entry : new ArrayList<>(allocatedClaims.entrySet())) {
            AllocatedClaim known = entry.getValue();
            if (!usesDevice(known.claim(), id, modified)) {
                continue;
            }
            Eviction eviction = claimEviction(known.claim(), null);
            if (!Objects.equals(eviction, known.eviction())) {
                allocatedClaims.put(entry.getKey(), new AllocatedClaim(known.claim(), eviction));
                handlePods(known.claim());
            }
        }
    }

    private void handleRuleChange(DeviceTaintRule oldRule, DeviceTaintRule newRule) {
        DeviceTaintRule rule = newRule != null ? newRule : oldRule;
        if (newRule == null) {
            rules.remove(rule.getMetadata().getName());
            evictedByRule.remove(rule.getMetadata().getUid());
        } else {
            rules.put(rule.getMetadata().getName(), newRule);
        }
        if (oldRule == null) {
            queue.add(new RuleWork(newRule.getMetadata().getName(), newRule.getMetadata().getUid()));
        }
        if (oldRule != null && newRule != null
                && Objects.equals(oldRule.getMetadata().getUid(), newRule.getMetadata().getUid())
                && Objects.equals(oldRule.getSpec(), newRule.getSpec())) {
            return;
        }
        // rule changes are rare: re-evaluate every allocated claim
        for (Map.Entry<ClaimId, AllocatedClaim> entry : new ArrayList<>(allocatedClaims.entrySet())) {
            AllocatedClaim known = entry.getValue();
            Eviction eviction = claimEviction(known.claim(), null);
            if (!Objects.equals(eviction, known.eviction())) {
                allocatedClaims.put(entry.getKey(), new AllocatedClaim(known.claim(), eviction));
                handlePods(known.claim());
            }
        }
    }

    private void handlePods(ResourceClaim claim) {
        for (ResourceClaimConsumerReference consumer : PodClaims.reservedFor(claim)) {
            if ((consumer.getApiGroup() == null || consumer.getApiGroup().isEmpty())
                    && "pods".equals(consumer.getResource())) {
                Pod pod = pods.getStore().getByKey(claim.getMetadata().getNamespace() + "/" + consumer.getName());
                if (pod != null && Objects.equals(pod.getMetadata().getUid(), consumer.getUid())) {
                    handlePod(pod);
                }
            } else if (podGroupClaims && PodGroupClaims.isPodGroup(consumer)) {
                // the group's pods, those of them that use the claim (podEviction checks)
                for (Pod pod : pods.getStore().list()) {
                    if (claim.getMetadata().getNamespace().equals(pod.getMetadata().getNamespace())
                            && consumer.getName().equals(PodGroupClaims.podGroupName(pod))) {
                        handlePod(pod);
                    }
                }
            }
        }
    }

    private void handlePod(Pod pod) {
        Eviction eviction = podEviction(pod, allocatedClaims, null);
        PodRef ref = podRef(pod);
        if (eviction == null) {
            cancelEviction(ref, true);
            return;
        }
        LOG.debug("going to evict pod {}/{} at {} because of {}", ref.namespace(), ref.name(), eviction.when(),
                eviction.reasons());
        deletePodAt.put(ref, eviction);
        queue.addAfter(new PodWork(ref), Duration.between(Instant.now(), eviction.when()));
        for (TaintSource reason : eviction.reasons()) {
            if (reason.ruleUid() != null) {
                queue.add(new RuleWork(reason.ruleName(), reason.ruleUid()));
            }
        }
    }

    private void cancelEviction(PodRef ref, boolean withEvent) {
        if (deletePodAt.remove(ref) != null && withEvent) {
            LOG.debug("canceled eviction of pod {}/{}", ref.namespace(), ref.name());
            events.record(reference(ref), EventRecorder.NORMAL, "DeviceTaintManagerEviction", "Cancelling deletion");
        }
    }

    /**
     * When the pod must go: the earliest eviction of the allocated claims reserved for it, with all their reasons.
     *
     * @param simulated a rule evaluated as if its effect were NoExecute, or null
     */
    private Eviction podEviction(Pod pod, Map<ClaimId, AllocatedClaim> claims, DeviceTaintRule simulated) {
        if (!PodClaims.scheduled(pod)) {
            return null;
        }
        Instant when = null;
        TreeSet<TaintSource> reasons = new TreeSet<>(Comparator.comparing(TaintSource::sortKey));
        for (PodResourceClaim podClaim : PodClaims.podClaims(pod)) {
            PodClaims.ClaimName name = PodClaims.claimName(pod, podClaim);
            if (!name.named()) {
                continue;
            }
            AllocatedClaim allocated = claims.get(new ClaimId(pod.getMetadata().getNamespace(), name.name()));
            if (allocated == null || name.checkOwner() && !isForPodOrGroup(pod, allocated.claim())
                    || !isReservedForPodOrGroup(pod, allocated.claim())) {
                continue;
            }
            Eviction eviction = simulated == null ? allocated.eviction() : claimEviction(allocated.claim(), simulated);
            if (eviction == null) {
                continue;
            }
            reasons.addAll(eviction.reasons());
            if (when == null || eviction.when().isBefore(when)) {
                when = eviction.when();
            }
        }
        return when == null ? null : new Eviction(when, List.copyOf(reasons));
    }

    private boolean isForPodOrGroup(Pod pod, ResourceClaim claim) {
        return PodClaims.isForPod(pod, claim) || podGroupClaims && PodGroupClaims.isForGroupOf(claim, pod);
    }

    private boolean isReservedForPodOrGroup(Pod pod, ResourceClaim claim) {
        return PodClaims.isReservedForPod(pod, claim)
                || podGroupClaims && PodGroupClaims.isReservedForGroupOf(claim, pod);
    }

    /**
     * The earliest time a NoExecute taint of one of the claim's devices is not tolerated any more, or null.
     *
     * @param simulated a rule evaluated as if its effect were NoExecute, or null
     */
    private Eviction claimEviction(ResourceClaim claim, DeviceTaintRule simulated) {
        Instant when = null;
        TreeSet<TaintSource> reasons = new TreeSet<>(Comparator.comparing(TaintSource::sortKey));
        for (DeviceRequestAllocationResult result : results(claim)) {
            for (TaintSource source : evictingTaints(result, simulated)) {
                Long tolerationSeconds = null;
                boolean tolerated = false;
                boolean toleratedForever = false;
                for (DeviceToleration toleration : result.getTolerations() == null ? List.<DeviceToleration>of()
                        : result.getTolerations()) {
                    if (NO_EXECUTE.equals(toleration.getEffect())
                            && DeviceTolerations.tolerates(toleration, source.taint())) {
                        if (toleration.getTolerationSeconds() == null) {
                            toleratedForever = true;
                            break;
                        }
                        long seconds = Math.max(0, toleration.getTolerationSeconds());
                        tolerationSeconds = tolerationSeconds == null ? seconds : Math.min(tolerationSeconds, seconds);
                        tolerated = true;
                    }
                }
                if (toleratedForever) {
                    continue;
                }
                Instant evictAt = timeAdded(source.taint());
                if (tolerated) {
                    evictAt = evictAt.plusSeconds(tolerationSeconds);
                }
                reasons.add(source);
                if (when == null || evictAt.isBefore(when)) {
                    when = evictAt;
                }
            }
        }
        return when == null ? null : new Eviction(when, List.copyOf(reasons));
    }

    /** The NoExecute taints of the allocated device: from its slice and from the rules that select it. */
    private List<TaintSource> evictingTaints(DeviceRequestAllocationResult result, DeviceTaintRule simulated) {
        List<TaintSource> taints = new ArrayList<>();
        Pool pool = pools.get(new PoolId(result.getDriver(), result.getPool()));
        ResourceSlice slice = pool == null ? null : pool.sliceOf(result.getDevice());
        if (slice != null) {
            for (Device device : slice.getSpec().getDevices()) {
                if (!result.getDevice().equals(device.getName()) || device.getTaints() == null) {
                    continue;
                }
                for (int i = 0; i < device.getTaints().size(); i++) {
                    DeviceTaint taint = device.getTaints().get(i);
                    if (NO_EXECUTE.equals(taint.getEffect())) {
                        taints.add(new TaintSource(null, null, slice.getMetadata().getName(), result.getDriver(),
                                result.getPool(), result.getDevice(), i, taint));
                    }
                }
            }
        }
        List<DeviceTaintRule> candidates = new ArrayList<>(rules.values());
        if (simulated != null) {
            candidates.removeIf(rule -> rule.getMetadata().getUid().equals(simulated.getMetadata().getUid()));
            candidates.add(simulated);
        }
        for (DeviceTaintRule rule : candidates) {
            DeviceTaint taint = rule.getSpec().getTaint();
            boolean evicting = NO_EXECUTE.equals(taint.getEffect()) || rule == simulated;
            if (evicting && DeviceTaints.selects(rule, result.getDriver(), result.getPool(), result.getDevice())) {
                DeviceTaint asNoExecute = rule == simulated ? new io.fabric8.kubernetes.api.model.resource.v1
                        .DeviceTaintBuilder(taint).withEffect(NO_EXECUTE).build() : taint;
                taints.add(new TaintSource(rule.getMetadata().getName(), rule.getMetadata().getUid(), null, null,
                        null, null, 0, asNoExecute));
            }
        }
        return taints;
    }

    /** A taint without a time (the API server sets one on create) counts as added long ago. */
    private static Instant timeAdded(DeviceTaint taint) {
        if (taint.getTimeAdded() == null) {
            return Instant.EPOCH;
        }
        try {
            return Instant.parse(taint.getTimeAdded());
        } catch (DateTimeParseException e) {
            return Instant.EPOCH;
        }
    }

    private static List<DeviceRequestAllocationResult> results(ResourceClaim claim) {
        var allocation = claim.getStatus() == null ? null : claim.getStatus().getAllocation();
        return allocation == null || allocation.getDevices() == null || allocation.getDevices().getResults() == null
                ? List.of() : allocation.getDevices().getResults();
    }

    private static boolean usesDevice(ResourceClaim claim, PoolId pool, Set<String> devices) {
        for (DeviceRequestAllocationResult result : results(claim)) {
            if (pool.driver().equals(result.getDriver()) && pool.pool().equals(result.getPool())
                    && devices.contains(result.getDevice())) {
                return true;
            }
        }
        return false;
    }

    private static PodRef podRef(Pod pod) {
        return new PodRef(pod.getMetadata().getNamespace(), pod.getMetadata().getName(), pod.getMetadata().getUid());
    }

    private static io.fabric8.kubernetes.api.model.ObjectReference reference(PodRef ref) {
        return new ObjectReferenceBuilder().withApiVersion("v1").withKind("Pod").withNamespace(ref.namespace())
                .withName(ref.name()).withUid(ref.uid()).build();
    }

    // ---- work (workers, no lock while calling the API server) ----

    @Override
    Duration sync(Work work) {
        if (work instanceof PodWork pod) {
            return maybeDeletePod(pod.pod());
        }
        RuleWork rule = (RuleWork) work;
        return maybeUpdateRuleStatus(rule.name(), rule.uid());
    }

    private Duration maybeDeletePod(PodRef ref) {
        Eviction eviction;
        synchronized (this) {
            eviction = deletePodAt.get(ref);
        }
        if (eviction == null) {
            return null; // canceled meanwhile
        }
        Duration remaining = Duration.between(Instant.now(), eviction.when());
        if (!remaining.isNegative() && !remaining.isZero()) {
            return remaining; // the time moved
        }
        boolean deleted = addConditionAndDeletePod(ref);
        synchronized (this) {
            deletePodAt.remove(ref, eviction);
            if (deleted) {
                for (TaintSource reason : eviction.reasons()) {
                    if (reason.ruleUid() != null) {
                        evictedByRule.merge(reason.ruleUid(), 1L, Long::sum);
                        // not at once: the status is computed from the informers, which lag behind the delete
                        queue.addAfter(new RuleWork(reason.ruleName(), reason.ruleUid()), ruleStatusPeriod);
                    }
                }
            }
        }
        return null;
    }

    /** @return whether this controller deleted the pod (false when it was gone, replaced or deleted already) */
    private boolean addConditionAndDeletePod(PodRef ref) {
        var resource = client.pods().inNamespace(ref.namespace()).withName(ref.name());
        Pod pod = resource.get();
        if (pod == null || !ref.uid().equals(pod.getMetadata().getUid()) || PodClaims.deleted(pod)) {
            return false;
        }
        events.record(reference(ref), EventRecorder.NORMAL, "DeviceTaintManagerEviction", "Marking for deletion");
        List<PodCondition> conditions = PodClaims.withCondition(pod.getStatus().getConditions(), "DisruptionTarget",
                "True", "DeletionByDeviceTaintManager", "Device Taint manager: deleting due to NoExecute taint");
        String resourceVersion = pod.getMetadata().getResourceVersion();
        if (conditions != null) {
            Map<String, Object> condition = new LinkedHashMap<>();
            PodCondition added = conditions.stream().filter(c -> "DisruptionTarget".equals(c.getType())).findFirst()
                    .orElseThrow();
            condition.put("type", added.getType());
            condition.put("status", added.getStatus());
            condition.put("reason", added.getReason());
            condition.put("message", added.getMessage());
            condition.put("lastTransitionTime", added.getLastTransitionTime());
            String patch = client.getKubernetesSerialization().asJson(Map.of(
                    "metadata", Map.of("uid", ref.uid()), "status", Map.of("conditions", List.of(condition))));
            Pod patched = resource.subresource("status").patch(new PatchContext.Builder()
                    .withPatchType(PatchType.STRATEGIC_MERGE).withFieldManager(COMPONENT).build(), patch);
            resourceVersion = patched.getMetadata().getResourceVersion();
        }
        // the resourceVersion precondition also protects against a new pod under the same name
        try {
            resource.lockResourceVersion(resourceVersion).delete();
        } catch (KubernetesClientException e) {
            if (e.getCode() == 404) {
                return false;
            }
            throw e;
        }
        LOG.info("evicted pod {}/{}: device taint NoExecute", ref.namespace(), ref.name());
        return true;
    }

    private Duration maybeUpdateRuleStatus(String name, String uid) {
        Condition condition;
        Condition existing;
        DeviceTaintRule rule;
        synchronized (this) {
            rule = rules.get(name);
            if (rule == null || !uid.equals(rule.getMetadata().getUid())) {
                return null; // deleted or replaced
            }
            existing = existingCondition(rule);
            Instant now = Instant.now();
            long generation = rule.getMetadata().getGeneration() == null ? 0 : rule.getMetadata().getGeneration();
            if (existing != null && Objects.equals(existing.getObservedGeneration(), generation)
                    && existing.getLastTransitionTime() != null) {
                Duration since = Duration.between(Instant.parse(existing.getLastTransitionTime()), now);
                if (since.compareTo(ruleStatusPeriod) < 0) {
                    return ruleStatusPeriod.minus(since);
                }
            }
            condition = computeCondition(rule, generation);
        }
        if (existing != null && sameExceptTime(existing, condition)) {
            return null;
        }
        condition.setLastTransitionTime(DateTimeFormatter.ISO_INSTANT.format(Instant.now().truncatedTo(ChronoUnit.SECONDS)));
        List<Condition> conditions = new ArrayList<>();
        if (rule.getStatus() != null && rule.getStatus().getConditions() != null) {
            for (Condition other : rule.getStatus().getConditions()) {
                if (!CONDITION_EVICTION_IN_PROGRESS.equals(other.getType())) {
                    conditions.add(other);
                }
            }
        }
        conditions.add(condition);
        String patch = client.getKubernetesSerialization().asJson(Map.of(
                "metadata", Map.of("uid", uid), "status", Map.of("conditions", conditions)));
        client.genericKubernetesResources(DEVICE_TAINT_RULES).withName(name).subresource("status")
                .patch(new PatchContext.Builder().withPatchType(PatchType.JSON_MERGE).withFieldManager(COMPONENT)
                        .build(), patch);
        LOG.debug("DeviceTaintRule {}: {} {}", name, condition.getReason(), condition.getMessage());
        return null;
    }

    private static Condition existingCondition(DeviceTaintRule rule) {
        if (rule.getStatus() == null || rule.getStatus().getConditions() == null) {
            return null;
        }
        return rule.getStatus().getConditions().stream()
                .filter(c -> CONDITION_EVICTION_IN_PROGRESS.equals(c.getType())).findFirst().orElse(null);
    }

    private static boolean sameExceptTime(Condition a, Condition b) {
        return Objects.equals(a.getStatus(), b.getStatus()) && Objects.equals(a.getReason(), b.getReason())
                && Objects.equals(a.getMessage(), b.getMessage())
                && Objects.equals(a.getObservedGeneration(), b.getObservedGeneration());
    }

    /** The condition as upstream words it; called under the lock. */
    private Condition computeCondition(DeviceTaintRule rule, long generation) {
        String effect = rule.getSpec().getTaint().getEffect();
        long evicted = evictedByRule.getOrDefault(rule.getMetadata().getUid(), 0L);
        String status = "False";
        String reason;
        StringBuilder message = new StringBuilder();
        if (NO_EXECUTE.equals(effect)) {
            long[] pending = countPendingPods(rule, null);
            if (pending[0] > 0) {
                reason = "PodsPendingEviction";
                status = "True";
                message.append(pending[0] == 1 ? "1 pod needs" : pending[0] + " pods need").append(" to be evicted in ")
                        .append(pending[1] == 1 ? "1 namespace." : pending[1] + " different namespaces.");
            } else {
                reason = evicted > 0 ? "Completed" : "NotStarted";
            }
        } else if (NONE.equals(effect)) {
            reason = "NoEffect";
            long[] pending = countPendingPods(rule, rule);
            long[] devices = countTaintedDevices(rule);
            message.append(devices[0] == 1 ? "1 published device selected. "
                    : devices[0] + " published devices selected. ");
            message.append(devices[1] == 1 ? "1 allocated device selected. "
                    : devices[1] + " allocated devices selected. ");
            message.append(pending[0] == 1 ? "1 pod would be evicted in " : pending[0] + " pods would be evicted in ");
            message.append(pending[1] == 1 ? "1 namespace " : pending[1] + " different namespaces ");
            message.append("if the effect was NoExecute. This information will not be updated again. "
                    + "Recreate the DeviceTaintRule to trigger an update.");
        } else {
            reason = "OtherEffect";
            message.append("Eviction only happens for the NoExecute effect.");
        }
        if (evicted > 0) {
            if (message.length() > 0) {
                message.append(' ');
            }
            message.append(evicted == 1 ? "1 pod " : evicted + " pods ").append("evicted since starting the controller.");
        }
        return new ConditionBuilder().withType(CONDITION_EVICTION_IN_PROGRESS).withStatus(status).withReason(reason)
                .withMessage(message.toString()).withObservedGeneration(generation).build();
    }

    /** @return pods (not deleted) that the rule makes go, and their namespaces */
    private long[] countPendingPods(DeviceTaintRule rule, DeviceTaintRule simulated) {
        long count = 0;
        Set<String> namespaces = new HashSet<>();
        for (Pod pod : pods.getStore().list()) {
            if (PodClaims.deleted(pod)) {
                continue;
            }
            Eviction eviction = podEviction(pod, allocatedClaims, simulated);
            if (eviction != null && eviction.reasons().stream()
                    .anyMatch(r -> rule.getMetadata().getUid().equals(r.ruleUid()))) {
                count++;
                namespaces.add(pod.getMetadata().getNamespace());
            }
        }
        return new long[] {count, namespaces.size()};
    }

    /** @return published devices and allocated devices the rule selects */
    private long[] countTaintedDevices(DeviceTaintRule rule) {
        long published = 0;
        for (Map.Entry<PoolId, Pool> entry : pools.entrySet()) {
            long max = entry.getValue().maxGeneration();
            for (ResourceSlice slice : entry.getValue().slices.values()) {
                Long generation = slice.getSpec().getPool().getGeneration();
                if ((generation == null ? 0 : generation) != max || slice.getSpec().getDevices() == null) {
                    continue;
                }
                for (Device device : slice.getSpec().getDevices()) {
                    if (DeviceTaints.selects(rule, entry.getKey().driver(), entry.getKey().pool(), device.getName())) {
                        published++;
                    }
                }
            }
        }
        long allocated = 0;
        for (AllocatedClaim claim : allocatedClaims.values()) {
            for (DeviceRequestAllocationResult result : results(claim.claim())) {
                if (DeviceTaints.selects(rule, result.getDriver(), result.getPool(), result.getDevice())) {
                    allocated++;
                }
            }
        }
        return new long[] {published, allocated};
    }
}
