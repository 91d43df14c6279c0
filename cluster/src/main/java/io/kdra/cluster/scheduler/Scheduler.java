package io.kdra.cluster.scheduler;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeAllocatableResourceClaimStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.resource.v1.AllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceTaintRule;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.api.model.scheduling.v1beta1.PodGroup;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.kdra.cluster.PodGroupClaims;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.kdra.allocator.StructuredAllocator;
import io.kdra.cluster.Timing;
import io.kdra.kube.client.Informers;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * kdra's kube-scheduler: an ordinary API client that assigns pods to nodes and allocates their ResourceClaims.
 *
 * <p>Structure as upstream, in small: informers feed a cache and a scheduling queue (active, backoff and
 * unschedulable pods, moved by the cluster events that may help them); one scheduling cycle runs at a time on the
 * scheduling thread (filters: NodeUnschedulable, TaintToleration with NotReady nodes tainted, NodeAffinity,
 * DynamicResources); the chosen node's allocations are assumed in the cache (so later cycles never hand out the same
 * devices) and the binding cycle runs on a small pool of binder threads (claim finalizer, allocation and reservation,
 * binding conditions, {@code pods/binding}).
 *
 * <p>There is no scoring: the node is the first feasible one in name order, starting where the previous cycle's search
 * stopped (upstream's {@code nextStartNodeIndex}), so the same cluster state and history give the same choice.
 *
 * <p>Only pods whose {@code spec.schedulerName} is this scheduler's name (the API server defaults it to
 * {@code default-scheduler}), without {@code spec.nodeName}, scheduling gates or a deletion timestamp are scheduled.
 */
public final class Scheduler implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Scheduler.class);
    private static final int BINDER_THREADS = 8;
    private static final long SYNC_TIMEOUT_SECONDS = 60;
    /** Upstream's {@code minFeasibleNodesToFind}: in smaller clusters every node is filtered. */
    private static final int MIN_FEASIBLE_NODES_TO_FIND = 100;

    private final KubernetesClient client;
    private final StructuredAllocator allocator;
    private final String schedulerName;
    private final SchedulerCache cache = new SchedulerCache();
    private final SchedulingQueue queue;
    private final DynamicResources dra;
    private final ExtendedResources extendedResources;
    private final Reporter reporter;
    private final Binder binder;
    private final LinkedBlockingQueue<Runnable> inbox = new LinkedBlockingQueue<>();
    private final List<SharedIndexInformer<?>> informers = new ArrayList<>();
    private final ExecutorService binders;
    private final Thread thread;
    private volatile boolean running;
    private boolean podGroupClaims;
    private boolean nodeAllocatableResources;
    /**
     * Pods this scheduler bound whose leaving the informer (no longer {@code spec.nodeName=""}) has not been seen yet:
     * a status update written before the binding (the extended-resource claim status, the node allocatable claim
     * statuses) must not queue them again.
     * Upstream's assumed pods play this part. Scheduling thread only.
     */
    private final java.util.Set<String> bound = new java.util.HashSet<>();
    private int nextStartNodeIndex;

    /**
     * @param client the scheduler's own client (identity {@code system:kube-scheduler})
     * @param allocator the structured allocator, with the cluster's DRA feature gates
     * @param timing {@link Timing#bindingTimeout()} bounds the wait for binding conditions; the pod back-off and the
     *     longest stay of an unschedulable pod come from it too
     * @param schedulerName the {@code spec.schedulerName} this scheduler serves, normally {@code default-scheduler}
     */
    public Scheduler(KubernetesClient client, StructuredAllocator allocator, Timing timing, String schedulerName) {
        this(client, allocator, timing, schedulerName, true);
    }

    /**
     * @param draExtendedResource the {@code DRAExtendedResource} gate: extended resources backed by DeviceClasses are
     *     allocated through a special ResourceClaim per pod (the other constructor has it on, upstream's default)
     */
    public Scheduler(KubernetesClient client, StructuredAllocator allocator, Timing timing, String schedulerName,
            boolean draExtendedResource) {
        this.client = Objects.requireNonNull(client, "client");
        this.allocator = Objects.requireNonNull(allocator, "allocator");
        this.schedulerName = Objects.requireNonNull(schedulerName, "schedulerName");
        this.queue = new SchedulingQueue(timing);
        this.dra = new DynamicResources(allocator, cache, timing.bindingTimeout());
        this.extendedResources = new ExtendedResources(draExtendedResource, cache);
        this.reporter = new Reporter(client, schedulerName);
        this.binder = new Binder(client, cache, reporter, new BinderResults(), dra.bindingConditionsEnabled(),
                timing.bindingTimeout());
        AtomicInteger binderNumber = new AtomicInteger();
        this.binders = Executors.newFixedThreadPool(BINDER_THREADS, runnable -> {
            Thread binderThread = new Thread(runnable, schedulerName + "-binder-" + binderNumber.incrementAndGet());
            binderThread.setDaemon(true);
            return binderThread;
        });
        this.thread = new Thread(this::run, schedulerName);
        this.thread.setDaemon(true);
    }

    /**
     * Lets the pods of a PodGroup share the group's claims (KEP-5729; gates GenericWorkload and
     * DRAWorkloadResourceClaims): a pod claim that matches one of its group's is reserved for the group. Call before
     * {@link #start()}.
     */
    public Scheduler withPodGroupClaims() {
        if (running) {
            throw new IllegalStateException("the scheduler is already started");
        }
        podGroupClaims = true;
        return this;
    }

    /**
     * Records in each pod's {@code status.nodeAllocatableResourceClaimStatuses}, before binding it, what its claims'
     * devices add to the node's resources (KEP-5517; gate DRANodeAllocatableResources), for the kubelet's cgroups.
     * Call before {@link #start()}.
     */
    public Scheduler withNodeAllocatableResources() {
        if (running) {
            throw new IllegalStateException("the scheduler is already started");
        }
        nodeAllocatableResources = true;
        return this;
    }

    /** Starts the informers, waits until they have listed everything, then starts scheduling. */
    public void start() {
        if (running) {
            throw new IllegalStateException("the scheduler is already started");
        }
        running = true;
        inform(Informers.inform(client.nodes(), handler(this::nodeChanged, this::nodeDeleted)));
        inform(Informers.inform(client.resources(DeviceClass.class),
                handler(this::classChanged, this::classDeleted)));
        inform(Informers.inform(client.resources(ResourceSlice.class),
                handler(this::sliceChanged, this::sliceDeleted)));
        if (allocator.features().deviceTaints() && allocator.features().deviceTaintRules()) {
            inform(taintRuleInformer());
        }
        if (podGroupClaims) {
            inform(Informers.inform(client.resources(PodGroup.class).inAnyNamespace(),
                    handler(this::podGroupChanged, this::podGroupDeleted)));
        }
        inform(Informers.inform(client.resources(ResourceClaim.class).inAnyNamespace(),
                handler(this::claimChanged, this::claimDeleted)));
        inform(Informers.inform(client.pods().inAnyNamespace().withField("spec.nodeName", ""),
                handler(this::podChanged, this::podDeleted)));
        for (SharedIndexInformer<?> informer : informers) {
            try {
                informer.start().toCompletableFuture().get(SYNC_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while the scheduler's informers synced", e);
            } catch (Exception e) {
                close();
                throw new IllegalStateException("the scheduler's informers did not sync: " + e.getMessage(), e);
            }
        }
        thread.start();
        LOG.info("scheduler {} started", schedulerName);
    }

    /** Stops the informers and every thread of the scheduler; the client stays open (the caller owns it). */
    @Override
    public void close() {
        running = false;
        informers.forEach(SharedIndexInformer::stop);
        thread.interrupt();
        binders.shutdownNow();
        reporter.close();
        try {
            if (thread.isAlive()) {
                thread.join(TimeUnit.SECONDS.toMillis(10));
            }
            binders.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * DeviceTaintRules in v1 where the server serves it, else in v1beta2 (the same shape) read as v1 for the
     * allocator.
     */
    private SharedIndexInformer<?> taintRuleInformer() {
        if (client.supports(DeviceTaintRule.class)) {
            return Informers.inform(client.resources(DeviceTaintRule.class),
                    handler(this::ruleChanged, this::ruleDeleted));
        }
        Function<io.fabric8.kubernetes.api.model.resource.v1beta2.DeviceTaintRule, DeviceTaintRule> asV1 =
                rule -> client.getKubernetesSerialization().convertValue(rule, DeviceTaintRule.class);
        return Informers.inform(
                client.resources(io.fabric8.kubernetes.api.model.resource.v1beta2.DeviceTaintRule.class),
                handler(rule -> ruleChanged(asV1.apply(rule)), rule -> ruleDeleted(asV1.apply(rule))));
    }

    private void inform(SharedIndexInformer<?> informer) {
        informers.add(informer);
    }

    /** Informer callbacks only hand the change to the scheduling thread. */
    private <T extends HasMetadata> ResourceEventHandler<T> handler(Consumer<T> changed, Consumer<T> deleted) {
        return Informers.handler(object -> inbox.add(() -> changed.accept(object)),
                object -> inbox.add(() -> deleted.accept(object)));
    }

    // --- the scheduling thread

    private void run() {
        while (running) {
            try {
                Runnable event;
                while ((event = inbox.poll()) != null) {
                    event.run();
                }
                long now = System.nanoTime();
                SchedulingQueue.Entry next = queue.pop(now);
                if (next != null) {
                    scheduleOrRetry(next);
                    continue;
                }
                long wait = Math.min(queue.nanosUntilDue(now), TimeUnit.SECONDS.toNanos(1));
                event = inbox.poll(wait, TimeUnit.NANOSECONDS);
                if (event != null) {
                    event.run();
                }
            } catch (InterruptedException e) {
                if (!running) {
                    return;
                }
            } catch (RuntimeException e) {
                LOG.error("scheduler error", e);
            }
        }
    }

    /** A cycle that breaks on a bug must not leave its pod in flight forever. */
    private void scheduleOrRetry(SchedulingQueue.Entry entry) {
        try {
            scheduleOne(entry);
        } catch (RuntimeException e) {
            LOG.error("scheduling pod {} failed", entry.key, e);
            Pod pod = cache.pod(entry.key);
            if (pod == null) {
                queue.remove(entry.key);
            } else if (entry.where == SchedulingQueue.Where.IN_FLIGHT) {
                fail(entry, pod, Reporter.SCHEDULER_ERROR, "internal error: " + e, System.nanoTime());
            }
        }
    }

    private void scheduleOne(SchedulingQueue.Entry entry) {
        Pod pod = cache.pod(entry.key);
        if (pod == null || !waitsForScheduling(pod)) {
            queue.remove(entry.key);
            return;
        }
        DynamicResources.PodClaims podClaims = dra.podClaims(pod);
        queue.useClaims(entry, podClaims.keys());
        if (podClaims.problem() != null) {
            entry.attempts--;
            waitForClaims(entry);
            return;
        }
        long now = System.nanoTime();
        List<NodeInfo> nodes = cache.nodes();
        if (nodes.isEmpty()) {
            fail(entry, pod, Reporter.SCHEDULER_ERROR, "no nodes available to schedule pods", now);
            return;
        }
        ExtendedResources.PodState extended = extendedResources.preFilter(pod);
        if (extended != null && extended.fromEarlierCycle()) {
            // upstream's Filter rejects every node and PostFilter deletes the stale claim, then the pod tries anew
            ResourceClaim stale = extended.claim();
            binders.execute(() -> binder.deleteExtendedClaim(stale));
            entry.rejectedByDra = true;
            unschedulable(entry, pod, FitError.message(nodes.size(),
                    Map.of(ExtendedResources.STALE_CLAIM, nodes.size()), FitError.STILL_NOT_SCHEDULABLE), true, now);
            return;
        }
        DynamicResources.CycleState state = null;
        if (!podClaims.claims().isEmpty() || extended != null) {
            DynamicResources.PreFilterResult preFilter = dra.preFilter(pod);
            if (preFilter.error() != null) {
                fail(entry, pod, Reporter.SCHEDULER_ERROR, "running PreFilter plugin \"" + DynamicResources.PLUGIN
                        + "\": " + preFilter.error(), now);
                return;
            }
            if (preFilter.unschedulable() != null) {
                entry.rejectedByDra = true;
                unschedulable(entry, pod, FitError.preFilter(nodes.size(), preFilter.unschedulable(),
                        FitError.NO_NEW_CLAIMS), false, now);
                return;
            }
            state = preFilter.state();
        }
        Map<String, Integer> reasons = new HashMap<>();
        int start = nextStartNodeIndex % nodes.size();
        NodeInfo chosen = null;
        List<AllocationResult> allocations = null;
        ExtendedResources.NodeClaim extendedClaim = null;
        boolean rejectedByDra = false;
        int processed = 0;
        while (processed < nodes.size() && chosen == null) {
            NodeInfo node = nodes.get((start + processed) % nodes.size());
            processed++;
            String reason = NodeFilters.reject(pod, node);
            if (reason == null) {
                reason = extendedResources.insufficient(pod, node);
                rejectedByDra |= reason != null;
            }
            if (reason == null && state != null) {
                extendedClaim = extended == null ? null : extendedResources.nodeClaim(extended, pod, node);
                DynamicResources.FilterResult filter = dra.filter(state, node,
                        extendedClaim == null ? null : extendedClaim.claim());
                if (filter.error() != null) {
                    nextStartNodeIndex = (start + processed) % nodes.size();
                    fail(entry, pod, Reporter.SCHEDULER_ERROR, "running \"" + DynamicResources.PLUGIN
                            + "\" filter plugin: " + filter.error(), now);
                    return;
                }
                reason = filter.unschedulable();
                rejectedByDra |= reason != null;
                allocations = filter.allocations();
            }
            if (reason == null) {
                chosen = node;
            } else {
                reasons.merge(reason, 1, Integer::sum);
            }
        }
        if (chosen != null && state != null && nodes.size() < MIN_FEASIBLE_NODES_TO_FIND) {
            // Upstream filters every node of a cluster this small before choosing one, so a plugin error on any node
            // (a CEL runtime error) fails the attempt even when another node fits.
            for (int i = processed; i < nodes.size(); i++) {
                NodeInfo node = nodes.get((start + i) % nodes.size());
                String error = NodeFilters.reject(pod, node) == null ? dra.filter(state, node).error() : null;
                if (error != null) {
                    nextStartNodeIndex = (start + processed) % nodes.size();
                    fail(entry, pod, Reporter.SCHEDULER_ERROR, "running \"" + DynamicResources.PLUGIN
                            + "\" filter plugin: " + error, now);
                    return;
                }
            }
        }
        nextStartNodeIndex = (start + processed) % nodes.size();
        if (chosen == null) {
            noFit(entry, pod, state, nodes.size(), reasons, rejectedByDra, now);
            return;
        }
        reserveAndBind(entry, pod, chosen, state, allocations, extendedClaim, now);
    }

    private void noFit(SchedulingQueue.Entry entry, Pod pod, DynamicResources.CycleState state, int nodes,
            Map<String, Integer> reasons, boolean rejectedByDra, long now) {
        String postFilter = FitError.NO_NEW_CLAIMS;
        boolean deallocated = false;
        if (state != null) {
            postFilter = FitError.STILL_NOT_SCHEDULABLE;
            ResourceClaim stuck = dra.claimToDeallocate(state, pod);
            ResourceClaim cleared = stuck == null ? null : binder.deallocate(stuck);
            if (cleared != null) {
                claimStored(cleared, null);
                postFilter = FitError.DEALLOCATED;
                deallocated = true;
            }
        }
        entry.rejectedByDra = rejectedByDra;
        // a deallocation is an event that may help this very pod: it goes to the backoff queue, as upstream's
        // in-flight events send it there
        unschedulable(entry, pod, FitError.message(nodes, reasons, postFilter), deallocated, now);
    }

    /** Reserve: the allocations count as taken from now on; the binding cycle continues on a binder thread. */
    private void reserveAndBind(SchedulingQueue.Entry entry, Pod pod, NodeInfo node, DynamicResources.CycleState state,
            List<AllocationResult> allocations, ExtendedResources.NodeClaim extendedClaim, long now) {
        List<Binder.ClaimToBind> claims = new ArrayList<>();
        if (state != null) {
            int next = 0;
            for (ResourceClaim claim : state.claims) {
                claims.add(new Binder.ClaimToBind(claim,
                        DynamicResources.allocationOf(claim) != null ? null : allocations.get(next++)));
            }
        }
        List<NodeAllocatableResourceClaimStatus> nodeAllocatable = List.of();
        if (nodeAllocatableResources && !claims.isEmpty()) {
            try {
                nodeAllocatable = NodeAllocatableStatuses.of(pod, NodeAllocatableStatuses.allocations(claims),
                        (driver, pool, device) -> cache.device(node.name(), driver, pool, device));
            } catch (NodeAllocatableStatuses.MappingException e) {
                fail(entry, pod, Reporter.SCHEDULER_ERROR, "running \"" + DynamicResources.PLUGIN
                        + "\" filter plugin: " + e.getMessage(), now);
                return;
            }
        }
        for (Binder.ClaimToBind claim : claims) {
            if (claim.allocation() != null) {
                cache.addInFlight(claim.claim().getMetadata().getUid(), SchedulerCache.key(claim.claim()),
                        claim.allocation());
            }
        }
        Binder.ExtendedClaim extended = null;
        if (extendedClaim != null) {
            // the allocator returned the special claim's allocation after those of the pod's own claims
            AllocationResult allocation = allocations.get(allocations.size() - 1);
            ResourceClaim inMemory = extendedClaim.claim();
            cache.addInFlight(inMemory.getMetadata().getUid(), SchedulerCache.key(inMemory), allocation);
            extended = new Binder.ExtendedClaim(inMemory, allocation, extendedClaim.mappings());
        }
        Binder.BindTask task = new Binder.BindTask(entry.key, pod, node.name(), claims, extended, nodeAllocatable);
        binders.execute(() -> binder.bind(task));
    }

    private void unschedulable(SchedulingQueue.Entry entry, Pod pod, String message, boolean retrySoon, long now) {
        reporter.failed(pod, Reporter.UNSCHEDULABLE, message);
        if (retrySoon) {
            queue.backoff(entry, now);
        } else {
            queue.parkUnschedulable(entry, now);
        }
    }

    private void fail(SchedulingQueue.Entry entry, Pod pod, String reason, String message, long now) {
        reporter.failed(pod, reason, message);
        queue.backoff(entry, now);
    }

    /** Upstream's PreEnqueue: a pod whose claims do not all exist waits without an attempt or a status write. */
    private void waitForClaims(SchedulingQueue.Entry entry) {
        entry.waitingForClaims = true;
        entry.rejectedByDra = true;
        queue.parkUnschedulable(entry, System.nanoTime());
    }

    private void enqueue(SchedulingQueue.Entry entry, Pod pod) {
        DynamicResources.PodClaims podClaims = dra.podClaims(pod);
        queue.useClaims(entry, podClaims.keys());
        if (podClaims.problem() != null) {
            waitForClaims(entry);
        } else {
            entry.waitingForClaims = false;
            queue.activateOrBackoff(entry, System.nanoTime());
        }
    }

    private void move(SchedulingQueue.Entry entry) {
        Pod pod = cache.pod(entry.key);
        if (pod != null) {
            enqueue(entry, pod);
        }
    }

    /** Moves the pods a DRA-related change may help (not those still waiting for their claims to exist). */
    private void moveDraRejected() {
        moveAll(entry -> entry.rejectedByDra && !entry.waitingForClaims);
    }

    // --- events, on the scheduling thread

    private boolean responsible(Pod pod) {
        String name = pod.getSpec() == null ? null : pod.getSpec().getSchedulerName();
        return schedulerName.equals(name == null || name.isEmpty() ? "default-scheduler" : name);
    }

    private boolean waitsForScheduling(Pod pod) {
        return responsible(pod) && (pod.getSpec().getNodeName() == null || pod.getSpec().getNodeName().isEmpty())
                && pod.getMetadata().getDeletionTimestamp() == null
                && (pod.getSpec().getSchedulingGates() == null || pod.getSpec().getSchedulingGates().isEmpty())
                && (pod.getStatus() == null || !("Succeeded".equals(pod.getStatus().getPhase())
                        || "Failed".equals(pod.getStatus().getPhase())));
    }

    private void podChanged(Pod pod) {
        if (bound.contains(pod.getMetadata().getUid())) {
            return;
        }
        String key = SchedulerCache.key(pod);
        Pod previous = cache.pod(key);
        SchedulingQueue.Entry entry = queue.get(key);
        if (previous != null && !previous.getMetadata().getUid().equals(pod.getMetadata().getUid())) {
            if (entry != null && entry.where != SchedulingQueue.Where.IN_FLIGHT) {
                queue.remove(key);
            }
            entry = queue.get(key);
            previous = null;
        }
        cache.putPod(pod);
        if (!waitsForScheduling(pod)) {
            if (entry != null && entry.where != SchedulingQueue.Where.IN_FLIGHT) {
                queue.remove(key);
            }
            return;
        }
        if (entry == null) {
            entry = queue.newEntry(key, pod.getSpec().getPriority() == null ? 0 : pod.getSpec().getPriority());
            enqueue(entry, pod);
        } else if (entry.where == SchedulingQueue.Where.UNSCHEDULABLE && previous != null
                && updateMayHelp(previous, pod)) {
            enqueue(entry, pod);
        }
    }

    /** A pod's own update may make it schedulable when its spec, labels or generated claims changed. */
    private static boolean updateMayHelp(Pod old, Pod pod) {
        return !Objects.equals(old.getSpec(), pod.getSpec())
                || !Objects.equals(old.getMetadata().getLabels(), pod.getMetadata().getLabels())
                || !Objects.equals(old.getStatus() == null ? null : old.getStatus().getResourceClaimStatuses(),
                        pod.getStatus() == null ? null : pod.getStatus().getResourceClaimStatuses());
    }

    private void podDeleted(Pod pod) {
        bound.remove(pod.getMetadata().getUid());
        String key = SchedulerCache.key(pod);
        Pod cached = cache.pod(key);
        if (cached != null && !cached.getMetadata().getUid().equals(pod.getMetadata().getUid())) {
            return;
        }
        cache.removePod(key);
        reporter.forget(pod.getMetadata().getUid());
        SchedulingQueue.Entry entry = queue.get(key);
        if (entry != null && entry.where != SchedulingQueue.Where.IN_FLIGHT) {
            queue.remove(key);
        }
    }

    private void nodeChanged(Node node) {
        NodeInfo info = NodeInfo.of(node);
        NodeInfo old = cache.putNode(info);
        if (info.filtersDifferFrom(old)) {
            moveAll(entry -> !entry.waitingForClaims);
        }
    }

    private void nodeDeleted(Node node) {
        cache.removeNode(node.getMetadata().getName());
    }

    private void classChanged(DeviceClass deviceClass) {
        cache.putClass(deviceClass);
        moveDraRejected();
    }

    private void podGroupChanged(PodGroup group) {
        cache.putPodGroup(group);
        String namespace = group.getMetadata().getNamespace();
        String name = group.getMetadata().getName();
        moveAll(entry -> {
            Pod pod = cache.pod(entry.key);
            return pod != null && namespace.equals(pod.getMetadata().getNamespace())
                    && name.equals(PodGroupClaims.podGroupName(pod));
        });
    }

    private void podGroupDeleted(PodGroup group) {
        cache.removePodGroup(SchedulerCache.key(group));
    }

    private void classDeleted(DeviceClass deviceClass) {
        cache.removeClass(deviceClass.getMetadata().getName());
    }

    private void sliceChanged(ResourceSlice slice) {
        cache.putSlice(slice);
        moveDraRejected();
    }

    private void sliceDeleted(ResourceSlice slice) {
        cache.removeSlice(slice.getMetadata().getName());
    }

    private void ruleChanged(DeviceTaintRule rule) {
        cache.putTaintRule(rule);
        moveDraRejected();
    }

    private void ruleDeleted(DeviceTaintRule rule) {
        cache.removeTaintRule(rule.getMetadata().getName());
        moveDraRejected();
    }

    private void claimChanged(ResourceClaim claim) {
        claimStored(claim, null);
    }

    /** A claim from a watch event or from the scheduler's own write; {@code inFlightUid} ends that allocation. */
    private void claimStored(ResourceClaim claim, String inFlightUid) {
        ResourceClaim old = cache.putClaim(claim);
        if (inFlightUid != null) {
            cache.removeInFlight(inFlightUid);
        }
        if (old == claim) {
            return;
        }
        boolean deallocated = old != null && DynamicResources.allocationOf(old) != null
                && DynamicResources.allocationOf(claim) == null;
        if (deallocated) {
            moveDraRejected();
        }
        boolean statusChanged = old == null || !Objects.equals(old.getStatus(), claim.getStatus());
        if (statusChanged) {
            queue.unschedulableUsing(SchedulerCache.key(claim)).forEach(this::move);
        }
    }

    private void claimDeleted(ResourceClaim claim) {
        ResourceClaim old = cache.removeClaim(SchedulerCache.key(claim));
        if (old != null && DynamicResources.allocationOf(old) != null) {
            moveDraRejected();
        }
    }

    private void moveAll(Predicate<SchedulingQueue.Entry> mayHelp) {
        queue.unschedulableMatching(mayHelp).forEach(this::move);
    }

    /** Ends a pod's time in flight; a new pod of the same name that arrived meanwhile gets its own turn. */
    private void finishInFlight(Binder.BindTask task) {
        queue.remove(task.key());
        Pod pod = cache.pod(task.key());
        if (pod != null && !pod.getMetadata().getUid().equals(task.pod().getMetadata().getUid())) {
            podChanged(pod);
        }
    }

    /** Binder reports, applied on the scheduling thread. */
    private final class BinderResults implements Binder.Results {
        @Override
        public void claimWritten(ResourceClaim written, String allocatedUid) {
            inbox.add(() -> claimStored(written, allocatedUid));
        }

        @Override
        public void bound(Binder.BindTask task) {
            inbox.add(() -> {
                if (cache.pod(task.key()) != null) {
                    bound.add(task.pod().getMetadata().getUid());
                }
                SchedulingQueue.Entry entry = queue.get(task.key());
                if (entry != null && entry.where == SchedulingQueue.Where.IN_FLIGHT) {
                    finishInFlight(task);
                }
            });
        }

        @Override
        public void failed(Binder.BindTask task, String message) {
            inbox.add(() -> {
                boolean released = false;
                for (Binder.ClaimToBind claim : task.claims()) {
                    released |= cache.removeInFlight(claim.claim().getMetadata().getUid());
                }
                if (task.extended() != null) {
                    released |= cache.removeInFlight(task.extended().inMemory().getMetadata().getUid());
                }
                if (released) {
                    moveDraRejected();
                }
                SchedulingQueue.Entry entry = queue.get(task.key());
                Pod pod = cache.pod(task.key());
                if (entry == null || entry.where != SchedulingQueue.Where.IN_FLIGHT) {
                    return;
                }
                if (pod == null || !pod.getMetadata().getUid().equals(task.pod().getMetadata().getUid())
                        || !waitsForScheduling(pod)) {
                    finishInFlight(task);
                    return;
                }
                LOG.info("binding pod {} to node {} failed: {}", task.key(), task.node(), message);
                fail(entry, pod, Reporter.SCHEDULER_ERROR, message, System.nanoTime());
            });
        }
    }
}
