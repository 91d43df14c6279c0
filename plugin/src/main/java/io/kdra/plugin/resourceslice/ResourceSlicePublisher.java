package io.kdra.plugin.resourceslice;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.CounterSet;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceTaint;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceTaintBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourcePool;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceList;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceSpec;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceSpecBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.FilterWatchListDeletable;
import io.fabric8.kubernetes.client.dsl.NonNamespaceOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the ResourceSlices of one driver (on one node, or cluster-wide) equal to the {@link DriverResources} it was
 * given, the Java counterpart of the Go {@code resourceslice} controller.
 *
 * <p>What it does:
 * <ul>
 *   <li>publishes each pool as ResourceSlices split at the API limits (see {@link Slice}), named
 *       {@code <index>-<driver>-[<node>-]<random>} with a five-digit hex index that orders them;</li>
 *   <li>for a node owner, sets {@code spec.nodeName} and a controller owner reference to the Node, so the slices are
 *       garbage-collected with it;</li>
 *   <li>bumps the pool generation when more than one slice must change, with the correct
 *       {@code resourceSliceCount}, so that the scheduler never combines old and new slices;</li>
 *   <li>updates changed slices, deletes slices of removed pools and slices it cannot match, and re-creates slices
 *       that someone else deleted (after the sync delay);</li>
 *   <li>deletes the slices of a pool it never published (someone else's, or left by an earlier instance) once the
 *       sync delay has passed since the last watch event of that pool, as upstream syncs each pool that long after
 *       its last event; a pool the driver stops publishing goes at once;</li>
 *   <li>reports rejected writes and fields the API server dropped through the {@link ErrorHandler}, and retries
 *       with exponential backoff.</li>
 * </ul>
 *
 * <p>It watches and lists with the field selectors the Go controller uses ({@code spec.driver=<driver>} and
 * {@code spec.nodeName=<node>}, or an empty node name for cluster-wide slices) and reads the current slices with a
 * LIST before every sync. All slices matching the selector belong to the publisher: use one publisher per driver and
 * node, and one per driver for cluster-wide pools. With {@link Builder#reconcilePoolWithName} a node's publisher owns
 * just the slices of that one pool ({@code spec.pool.name=<pool>}) and leaves {@code spec.nodeName} unset, so that a
 * node publishes a pool the whole cluster sees (upstream's {@code ReconcilePoolWithName}).
 */
public final class ResourceSlicePublisher implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ResourceSlicePublisher.class);
    /** Upstream's default wait after an informer event, so that the API server's state has settled. */
    public static final Duration DEFAULT_SYNC_DELAY = Duration.ofSeconds(30);
    private static final Duration FIRST_RETRY = Duration.ofMillis(250);
    private static final Duration MAX_RETRY = Duration.ofMinutes(2);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);
    private static final int MIN_INDEX_LENGTH = 5;

    /** Receives the problems the publisher runs into while it keeps retrying. */
    @FunctionalInterface
    public interface ErrorHandler {
        /**
         * @param error what went wrong; a {@link DroppedFieldsException} when the API server dropped fields
         * @param context what the publisher was doing, for example {@code create ResourceSlice for pool "node-1"}
         */
        void handle(Exception error, String context);
    }

    /**
     * Counts of the API writes the publisher made.
     *
     * @param creates ResourceSlices created
     * @param updates ResourceSlices updated
     * @param deletes ResourceSlices deleted
     */
    public record Stats(long creates, long updates, long deletes) {
    }

    /** A pool and the slices it turns into. */
    private record Plan(Pool pool, List<SliceLayout.Content> contents) {
    }

    /** A failed API call and what it was for. */
    private static final class SyncException extends Exception {
        private static final long serialVersionUID = 1L;
        private final String context;

        SyncException(String context, Exception cause) {
            super(context + ": " + cause.getMessage(), cause);
            this.context = context;
        }
    }

    private final KubernetesClient client;
    private final String driverName;
    private final String nodeName;
    private final String reconciledPool;
    private final ErrorHandler errorHandler;
    private final Duration syncDelay;
    private final boolean deleteOnStop;
    private final ScheduledExecutorService worker;
    private final SharedIndexInformer<ResourceSlice> informer;
    private final AtomicLong creates = new AtomicLong();
    private final AtomicLong updates = new AtomicLong();
    private final AtomicLong deletes = new AtomicLong();
    /** The stored form of desired contents the API server changed; only the worker thread uses it. */
    private final Map<SliceLayout.Content, SliceLayout.Content> adopted = new HashMap<>();
    private final Object scheduling = new Object();
    private volatile Map<String, Plan> plans = Map.of();
    /** When the watch last showed a slice of each pool ({@link System#nanoTime()}). */
    private final Map<String, Long> lastPoolEvents = new ConcurrentHashMap<>();
    /** Pools the driver stopped publishing whose slices may remain; guarded by {@link #scheduling}. */
    private final Set<String> removedPools = new HashSet<>();
    private String nodeUid;
    private ScheduledFuture<?> pendingSync;
    private long pendingSyncAt;
    private int failures;
    private boolean stopped;

    private ResourceSlicePublisher(Builder builder) {
        this.client = builder.client;
        this.driverName = builder.driverName;
        this.nodeName = builder.nodeName;
        this.reconciledPool = builder.reconcilePoolWithName;
        this.nodeUid = builder.nodeUid;
        this.errorHandler = builder.errorHandler;
        this.syncDelay = builder.syncDelay;
        this.deleteOnStop = builder.deleteOnStop;
        this.worker = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "kdra-resourceslices-" + driverName);
            thread.setDaemon(true);
            return thread;
        });
        this.informer = selected().runnableInformer(0);
    }

    /**
     * Starts configuring a publisher.
     *
     * @param client the API client; it needs get/list/watch/create/update/delete on resourceslices and get on nodes
     * @param driverName the DRA driver name, {@code spec.driver} of every slice
     */
    public static Builder builder(KubernetesClient client, String driverName) {
        return new Builder(client, driverName);
    }

    /**
     * Replaces the desired state; the publisher syncs right away, in the background.
     *
     * @throws IllegalArgumentException if a pool's node selection does not fit the publisher (node-local pools set
     *     none, cluster-wide pools exactly one)
     * @throws IllegalStateException after {@link #stop()}
     */
    public void update(DriverResources resources) {
        Map<String, Plan> next = new TreeMap<>();
        resources.pools().forEach((name, pool) -> {
            checkNodeSelection(name, pool);
            next.put(name, new Plan(pool, copyOf(SliceLayout.of(pool))));
        });
        synchronized (scheduling) {
            if (stopped) {
                throw new IllegalStateException("ResourceSlice publisher for driver " + driverName + " is stopped");
            }
            plans.keySet().stream().filter(pool -> !next.containsKey(pool)).forEach(removedPools::add);
            removedPools.removeAll(next.keySet());
            plans = next;
        }
        requestSync(Duration.ZERO);
    }

    /** How many slices the publisher created, updated and deleted so far. */
    public Stats stats() {
        return new Stats(creates.get(), updates.get(), deletes.get());
    }

    /**
     * Stops syncing and watching, waiting for a sync in progress. With delete-on-stop, then deletes every slice the
     * publisher owns. Calling it again does nothing.
     */
    public void stop() {
        synchronized (scheduling) {
            if (stopped) {
                return;
            }
            stopped = true;
            if (pendingSync != null) {
                pendingSync.cancel(false);
            }
        }
        informer.stop();
        worker.shutdown();
        try {
            if (!worker.awaitTermination(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                worker.shutdownNow();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            worker.shutdownNow();
        }
        if (deleteOnStop) {
            deleteAll();
        }
        LOG.info("stopped publishing ResourceSlices of driver {}", driverName);
    }

    /** Same as {@link #stop()}. */
    @Override
    public void close() {
        stop();
    }

    private void start(DriverResources initial) {
        update(initial);
        informer.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(ResourceSlice slice) {
                poolEvent(slice);
                requestSync(syncDelay);
            }

            @Override
            public void onUpdate(ResourceSlice oldSlice, ResourceSlice newSlice) {
                poolEvent(oldSlice);
                poolEvent(newSlice);
                requestSync(syncDelay);
            }

            @Override
            public void onDelete(ResourceSlice slice, boolean deletedFinalStateUnknown) {
                poolEvent(slice);
                requestSync(syncDelay);
            }
        });
        informer.start().whenComplete((ignored, error) -> {
            // A stop before the first list completes also ends the start with an error; that one is expected.
            if (error != null && !isStopped()) {
                errorHandler.handle(asException(error), "watch ResourceSlices");
            }
        });
        LOG.info("publishing ResourceSlices of driver {}{}", driverName, nodeName == null ? "" : " on node " + nodeName);
    }

    private void poolEvent(ResourceSlice slice) {
        if (slice.getSpec() != null && slice.getSpec().getPool() != null) {
            lastPoolEvents.put(slice.getSpec().getPool().getName(), System.nanoTime());
        }
    }

    /**
     * Whether the slices of a pool the driver does not publish may go now: right away for a pool it stopped
     * publishing, else once the pool's last watch event is a sync delay old (a pool seen by a LIST before its watch
     * event counts as seen now). Otherwise a sync is requested for that time.
     */
    private boolean mayDeleteUnpublished(String poolName) {
        synchronized (scheduling) {
            if (removedPools.contains(poolName)) {
                return true;
            }
        }
        long now = System.nanoTime();
        long quietFor = now - lastPoolEvents.computeIfAbsent(poolName, pool -> now);
        if (quietFor >= syncDelay.toNanos()) {
            return true;
        }
        requestSync(Duration.ofNanos(syncDelay.toNanos() - quietFor));
        return false;
    }

    private void checkNodeSelection(String name, Pool pool) {
        if (reconciledPool != null) {
            if (!reconciledPool.equals(name)) {
                throw new IllegalArgumentException("pool \"" + name + "\": this publisher reconciles only pool \""
                        + reconciledPool + "\"");
            }
            if (pool.nodeSelections() != 1) {
                throw new IllegalArgumentException("pool \"" + name
                        + "\": a pool reconciled by name needs one of nodeSelector, allNodes or perDeviceNodeSelection");
            }
            return;
        }
        if (nodeName != null && pool.nodeSelections() > 0) {
            throw new IllegalArgumentException("pool \"" + name + "\": pools local to node " + nodeName
                    + " must not set nodeSelector, allNodes or perDeviceNodeSelection");
        }
        if (nodeName == null && pool.nodeSelections() != 1) {
            throw new IllegalArgumentException("pool \"" + name
                    + "\": a pool not local to a node needs one of nodeSelector, allNodes or perDeviceNodeSelection");
        }
    }

    /** Deep copies, so that later changes to the caller's objects do not leak into the published state. */
    private List<SliceLayout.Content> copyOf(List<SliceLayout.Content> contents) {
        return contents.stream()
                .map(content -> new SliceLayout.Content(
                        content.devices().stream().map(client.getKubernetesSerialization()::clone).toList(),
                        content.sharedCounters().stream().map(client.getKubernetesSerialization()::clone).toList()))
                .toList();
    }

    private boolean isStopped() {
        synchronized (scheduling) {
            return stopped;
        }
    }

    private void requestSync(Duration delay) {
        synchronized (scheduling) {
            if (stopped) {
                return;
            }
            long at = System.nanoTime() + delay.toNanos();
            if (pendingSync != null && pendingSyncAt - at <= 0) {
                return;
            }
            if (pendingSync != null) {
                pendingSync.cancel(false);
            }
            pendingSync = worker.schedule(this::runSync, delay.toNanos(), TimeUnit.NANOSECONDS);
            pendingSyncAt = at;
        }
    }

    private void runSync() {
        synchronized (scheduling) {
            // Requests from now on need a new run: this one may already have read the state they are about.
            pendingSync = null;
        }
        try {
            syncAll();
            failures = 0;
        } catch (SyncException e) {
            retryAfter(e.getCause() instanceof Exception cause ? cause : e, e.context);
        } catch (RuntimeException e) {
            retryAfter(e, "processing ResourceSlice objects");
        }
    }

    private void retryAfter(Exception error, String context) {
        failures++;
        LOG.debug("{} failed (attempt {})", context, failures, error);
        errorHandler.handle(error, context);
        long millis = FIRST_RETRY.toMillis() << Math.min(failures - 1, 20);
        requestSync(Duration.ofMillis(Math.min(millis, MAX_RETRY.toMillis())));
    }

    private void syncAll() throws SyncException {
        Map<String, Plan> desired = plans;
        resolveNodeUid();
        Map<String, List<ResourceSlice>> byPool = new LinkedHashMap<>();
        for (ResourceSlice slice : call("list ResourceSlices", () -> selected().list()).getItems()) {
            byPool.computeIfAbsent(slice.getSpec().getPool().getName(), pool -> new ArrayList<>()).add(slice);
        }
        Set<String> pools = new TreeSet<>(desired.keySet());
        pools.addAll(byPool.keySet());
        for (String pool : pools) {
            List<ResourceSlice> current = byPool.getOrDefault(pool, List.of());
            if (desired.containsKey(pool) || mayDeleteUnpublished(pool)) {
                syncPool(pool, current, desired.get(pool));
            }
        }
        synchronized (scheduling) {
            removedPools.retainAll(byPool.keySet());
        }
        lastPoolEvents.keySet().retainAll(byPool.keySet());
        adopted.keySet().retainAll(desired.values().stream().flatMap(plan -> plan.contents().stream()).toList());
    }

    private void syncPool(String poolName, List<ResourceSlice> current, Plan plan) throws SyncException {
        if (plan == null) {
            for (ResourceSlice slice : current) {
                delete(slice, "delete ResourceSlice of removed pool \"" + poolName + "\"");
            }
            return;
        }
        int count = plan.contents().size();
        int indexLength = Math.max(MIN_INDEX_LENGTH, Integer.toHexString(count - 1).length());
        long generation = current.stream().mapToLong(ResourceSlicePublisher::generationOf).max().orElse(0);

        Map<Integer, ResourceSlice> matched = new TreeMap<>();
        List<ResourceSlice> obsolete = new ArrayList<>();
        for (ResourceSlice slice : current) {
            int index = generationOf(slice) < generation ? -1 : indexOf(slice, indexLength);
            if (index >= 0 && index < count && !matched.containsKey(index)) {
                matched.put(index, slice);
            } else {
                obsolete.add(slice);
            }
        }
        ResourcePool unchangedPool = poolMeta(poolName, generation, count);
        Set<Integer> changed = new TreeSet<>();
        matched.forEach((index, slice) -> {
            if (!isUpToDate(slice.getSpec(), unchangedPool, plan.pool(), desiredContent(plan, index))) {
                changed.add(index);
            }
        });

        boolean bumped = true;
        if (plan.pool().generation() > generation) {
            generation = plan.pool().generation();
        } else if (matched.size() == count && changed.size() <= 1) {
            // A single write is atomic, so readers never see a mix of generations.
            bumped = false;
        } else {
            generation++;
        }
        ResourcePool pool = poolMeta(poolName, generation, count);

        // Delete first: devices the driver no longer has must go even if the new slices cannot be written.
        for (ResourceSlice slice : obsolete) {
            delete(slice, "delete obsolete ResourceSlice of pool \"" + poolName + "\"");
        }
        for (Map.Entry<Integer, ResourceSlice> entry : matched.entrySet()) {
            if (bumped || changed.contains(entry.getKey())) {
                updateSlice(entry.getValue(), pool, plan, entry.getKey());
            }
        }
        for (int index = 0; index < count; index++) {
            if (!matched.containsKey(index)) {
                createSlice(pool, plan, index, indexLength);
            }
        }
    }

    private void createSlice(ResourcePool pool, Plan plan, int index, int indexLength) throws SyncException {
        SliceLayout.Content want = desiredContent(plan, index);
        ResourceSlice slice = new ResourceSliceBuilder()
                .withNewMetadata()
                .withGenerateName(String.format("%0" + indexLength + "x", index) + "-" + driverName + "-"
                        + (nodeName == null ? "" : nodeName + "-"))
                .withOwnerReferences(ownerReferences())
                .endMetadata()
                .withSpec(spec(pool, plan.pool(), want.devices(), want.sharedCounters()))
                .build();
        String context = "create ResourceSlice for pool \"" + pool.getName() + "\"";
        ResourceSlice stored = call(context, () -> slices().resource(slice).create());
        creates.incrementAndGet();
        LOG.debug("created ResourceSlice {} (pool {}, generation {})", stored.getMetadata().getName(), pool.getName(),
                pool.getGeneration());
        checkStored(plan, index, stored, context);
    }

    private void updateSlice(ResourceSlice current, ResourcePool pool, Plan plan, int index) throws SyncException {
        SliceLayout.Content want = desiredContent(plan, index);
        ResourceSlice slice = new ResourceSliceBuilder(current)
                .withSpec(spec(pool, plan.pool(), withStoredTaintTimes(want.devices(), current.getSpec().getDevices()),
                        want.sharedCounters()))
                .build();
        String context = "update ResourceSlice " + current.getMetadata().getName();
        ResourceSlice stored = call(context, () -> slices().resource(slice).update());
        updates.incrementAndGet();
        LOG.debug("updated ResourceSlice {} (pool {}, generation {})", stored.getMetadata().getName(), pool.getName(),
                pool.getGeneration());
        checkStored(plan, index, stored, context);
    }

    private void delete(ResourceSlice slice, String context) throws SyncException {
        String name = slice.getMetadata().getName();
        // Not found means someone else deleted it already, which is what we wanted.
        if (!call(context + " " + name, () -> slices().withName(name).delete()).isEmpty()) {
            deletes.incrementAndGet();
            LOG.debug("deleted ResourceSlice {}", name);
        }
    }

    /** If the API server stored something else than asked for, adopts the stored form and reports the difference. */
    private void checkStored(Plan plan, int index, ResourceSlice stored, String context) {
        SliceLayout.Content wanted = plan.contents().get(index);
        SliceLayout.Content want = desiredContent(plan, index);
        List<Device> storedDevices = stored.getSpec().getDevices();
        List<CounterSet> storedCounters = stored.getSpec().getSharedCounters();
        if (storedDevices.equals(withStoredTaintTimes(want.devices(), storedDevices))
                && storedCounters.equals(want.sharedCounters())) {
            return;
        }
        adopted.put(wanted, new SliceLayout.Content(List.copyOf(storedDevices), List.copyOf(storedCounters)));
        ResourceSliceSpec desiredSpec = spec(stored.getSpec().getPool(), plan.pool(), want.devices(),
                want.sharedCounters());
        errorHandler.handle(new DroppedFieldsException(stored.getSpec().getPool().getName(), index, desiredSpec,
                stored.getSpec()), context);
    }

    private SliceLayout.Content desiredContent(Plan plan, int index) {
        SliceLayout.Content content = plan.contents().get(index);
        return adopted.getOrDefault(content, content);
    }

    private static boolean isUpToDate(ResourceSliceSpec current, ResourcePool pool, Pool desired,
            SliceLayout.Content want) {
        return Objects.equals(current.getPool(), pool)
                && Objects.equals(current.getNodeSelector(), desired.nodeSelector())
                && Boolean.TRUE.equals(current.getAllNodes()) == desired.allNodes()
                && Boolean.TRUE.equals(current.getPerDeviceNodeSelection()) == desired.perDeviceNodeSelection()
                && current.getSkipNodeOperations().equals(desired.skipNodeOperations())
                && current.getSharedCounters().equals(want.sharedCounters())
                && current.getDevices().equals(withStoredTaintTimes(want.devices(), current.getDevices()));
    }

    private ResourceSliceSpec spec(ResourcePool pool, Pool desired, List<Device> devices,
            List<CounterSet> sharedCounters) {
        return new ResourceSliceSpecBuilder()
                .withDriver(driverName)
                .withPool(pool)
                .withNodeName(reconciledPool == null ? nodeName : null)
                .withNodeSelector(desired.nodeSelector())
                .withAllNodes(desired.allNodes() ? Boolean.TRUE : null)
                .withPerDeviceNodeSelection(desired.perDeviceNodeSelection() ? Boolean.TRUE : null)
                .withSkipNodeOperations(desired.skipNodeOperations().isEmpty() ? null
                        : new ArrayList<>(desired.skipNodeOperations()))
                .withPartitionTypeAttribute(desired.partitionTypeAttribute())
                .withDevices(devices)
                .withSharedCounters(sharedCounters)
                .build();
    }

    /**
     * The API server fills in {@code timeAdded} of taints that lack it; a desired taint without it matches a stored
     * one with it, and updates keep the stored time.
     */
    private static List<Device> withStoredTaintTimes(List<Device> desired, List<Device> stored) {
        Map<String, Device> storedByName = new HashMap<>();
        stored.forEach(device -> storedByName.putIfAbsent(device.getName(), device));
        List<Device> result = new ArrayList<>(desired.size());
        for (Device device : desired) {
            Device previous = storedByName.get(device.getName());
            if (previous == null || device.getTaints().stream().allMatch(taint -> taint.getTimeAdded() != null)) {
                result.add(device);
                continue;
            }
            List<DeviceTaint> taints = device.getTaints().stream()
                    .map(taint -> taint.getTimeAdded() != null ? taint : previous.getTaints().stream()
                            .filter(old -> old.getTimeAdded() != null && Objects.equals(old.getKey(), taint.getKey())
                                    && Objects.equals(old.getValue(), taint.getValue())
                                    && Objects.equals(old.getEffect(), taint.getEffect()))
                            .findFirst()
                            .map(old -> new DeviceTaintBuilder(taint).withTimeAdded(old.getTimeAdded()).build())
                            .orElse(taint))
                    .toList();
            result.add(new DeviceBuilder(device).withTaints(taints).build());
        }
        return result;
    }

    private static ResourcePool poolMeta(String name, long generation, int count) {
        return new ResourcePool(generation, name, (long) count);
    }

    private static long generationOf(ResourceSlice slice) {
        Long generation = slice.getSpec().getPool().getGeneration();
        return generation == null ? 0 : generation;
    }

    /** The index encoded in the name prefix, or -1 for names this publisher did not generate with this length. */
    private static int indexOf(ResourceSlice slice, int indexLength) {
        String name = slice.getMetadata().getName();
        if (name.indexOf('-') != indexLength) {
            return -1;
        }
        try {
            return Integer.parseInt(name.substring(0, indexLength), 16);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private void resolveNodeUid() throws SyncException {
        if (nodeName == null || nodeUid != null) {
            return;
        }
        String context = "retrieve node \"" + nodeName + "\"";
        Node node = call(context, () -> client.nodes().withName(nodeName).get());
        if (node == null) {
            throw new SyncException(context, new IllegalStateException("nodes \"" + nodeName + "\" not found"));
        }
        nodeUid = node.getMetadata().getUid();
    }

    private List<OwnerReference> ownerReferences() {
        if (nodeName == null) {
            return List.of();
        }
        return List.of(new OwnerReferenceBuilder()
                .withApiVersion("v1")
                .withKind("Node")
                .withName(nodeName)
                .withUid(nodeUid)
                .withController(true)
                .build());
    }

    private void deleteAll() {
        try {
            for (ResourceSlice slice : call("list ResourceSlices", () -> selected().list()).getItems()) {
                delete(slice, "delete ResourceSlice on stop");
            }
        } catch (SyncException e) {
            errorHandler.handle(e.getCause() instanceof Exception cause ? cause : e, e.context);
        }
    }

    private NonNamespaceOperation<ResourceSlice, ResourceSliceList, Resource<ResourceSlice>> slices() {
        return client.dynamicResourceAllocation().v1().resourcesSlices();
    }

    /** The slices this publisher owns, selected as the Go controller selects them. */
    private FilterWatchListDeletable<ResourceSlice, ResourceSliceList, Resource<ResourceSlice>> selected() {
        if (reconciledPool != null) {
            return slices().withField("spec.driver", driverName).withField("spec.pool.name", reconciledPool);
        }
        return slices()
                .withField("spec.driver", driverName)
                .withField("spec.nodeName", nodeName == null ? "" : nodeName);
    }

    private static <T> T call(String context, Supplier<T> request) throws SyncException {
        try {
            return request.get();
        } catch (KubernetesClientException e) {
            throw new SyncException(context, e);
        }
    }

    private static Exception asException(Throwable error) {
        return error instanceof Exception exception ? exception : new RuntimeException(error);
    }

    /** Configures and starts a {@link ResourceSlicePublisher}. */
    public static final class Builder {

        private final KubernetesClient client;
        private final String driverName;
        private String nodeName;
        private String nodeUid;
        private String reconcilePoolWithName;
        private ErrorHandler errorHandler = (error, context) -> LOG.warn("{}: {}", context, error.getMessage());
        private Duration syncDelay = DEFAULT_SYNC_DELAY;
        private boolean deleteOnStop;

        private Builder(KubernetesClient client, String driverName) {
            this.client = Objects.requireNonNull(client, "client");
            if (driverName == null || driverName.isEmpty()) {
                throw new IllegalArgumentException("DRA driver name is empty");
            }
            this.driverName = driverName;
        }

        /**
         * Publishes node-local slices of this node: {@code spec.nodeName} and a controller owner reference to the
         * Node.
         *
         * @param nodeName the node
         * @param nodeUid the Node's UID, or {@code null} to look it up once
         */
        public Builder nodeOwner(String nodeName, String nodeUid) {
            if (nodeName == null || nodeName.isEmpty()) {
                throw new IllegalArgumentException("node name of the ResourceSlice owner is empty");
            }
            this.nodeName = nodeName;
            this.nodeUid = nodeUid;
            return this;
        }

        /**
         * Reconciles only the slices of this pool, selected by driver and pool name, and publishes them without
         * {@code spec.nodeName} even for a node owner; the pool must then set a node selection (for example
         * {@code allNodes}) and be the only pool given.
         */
        public Builder reconcilePoolWithName(String poolName) {
            if (poolName == null || poolName.isEmpty()) {
                throw new IllegalArgumentException("name of the reconciled pool is empty");
            }
            this.reconcilePoolWithName = poolName;
            return this;
        }

        /** Where problems go; the default logs them as warnings. */
        public Builder errorHandler(ErrorHandler errorHandler) {
            this.errorHandler = Objects.requireNonNull(errorHandler, "errorHandler");
            return this;
        }

        /**
         * How long to wait after a watch event before syncing, default {@link #DEFAULT_SYNC_DELAY}. It bounds how
         * fast slices deleted by someone else come back.
         */
        public Builder syncDelay(Duration syncDelay) {
            if (syncDelay.isNegative()) {
                throw new IllegalArgumentException("sync delay " + syncDelay + " is negative");
            }
            this.syncDelay = syncDelay;
            return this;
        }

        /** Whether {@link ResourceSlicePublisher#stop()} deletes the slices; off by default, as upstream. */
        public Builder deleteOnStop(boolean deleteOnStop) {
            this.deleteOnStop = deleteOnStop;
            return this;
        }

        /**
         * Starts watching and publishes the initial resources in the background.
         *
         * @throws IllegalArgumentException if a pool's node selection does not fit (see {@link #update})
         */
        public ResourceSlicePublisher start(DriverResources initial) {
            ResourceSlicePublisher publisher = new ResourceSlicePublisher(this);
            try {
                publisher.start(initial);
            } catch (RuntimeException e) {
                publisher.stop();
                throw e;
            }
            return publisher;
        }
    }
}
