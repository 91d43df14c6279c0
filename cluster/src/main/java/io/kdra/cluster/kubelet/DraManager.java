package io.kdra.cluster.kubelet;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerExtendedResourceRequest;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodExtendedResourceClaimStatus;
import io.fabric8.kubernetes.api.model.PodResourceClaim;
import io.fabric8.kubernetes.api.model.PodResourceClaimStatus;
import io.fabric8.kubernetes.api.model.ResourceHealth;
import io.fabric8.kubernetes.api.model.ResourceStatus;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimConsumerReference;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.grpc.StatusRuntimeException;
import io.kdra.cluster.PodGroupClaims;
import io.kdra.kube.FeatureGates;
import io.kdra.kubelet.api.dra.v1.Claim;
import io.kdra.kubelet.api.dra.v1.Device;
import io.kdra.kubelet.api.dra.v1.NodePrepareResourceResponse;
import io.kdra.kubelet.api.dra.v1.NodePrepareResourcesRequest;
import io.kdra.kubelet.api.dra.v1.NodePrepareResourcesResponse;
import io.kdra.kubelet.api.dra.v1.NodeUnprepareResourceResponse;
import io.kdra.kubelet.api.dra.v1.NodeUnprepareResourcesRequest;
import io.kdra.kubelet.api.dra.v1.NodeUnprepareResourcesResponse;
import io.kdra.kubelet.api.drahealth.v1.DeviceHealth;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The kubelet's DRA manager ({@code pkg/kubelet/cm/dra/manager.go}) for one node: prepares a pod's claims before its
 * containers start (claim checks, one NodePrepareResources per driver per pod, every response check), hands the CDI
 * device IDs to containers, unprepares a claim when the last pod using it is done, reconciles claims of pods that
 * disappeared, keeps the checkpoint, caches device health from the plugins' streams, and reports
 * {@code dra_resource_claims_in_use}.
 *
 * <p>Unlike the newest kubelet, an unprepared claim's entry is removed at once instead of being kept as a tombstone
 * for five minutes (tombstones only serve health updates of terminated pods).
 */
final class DraManager implements DraPluginManager.HealthListener {

    private static final Logger LOG = LoggerFactory.getLogger(DraManager.class);
    private static final Duration DEFAULT_HEALTH_TIMEOUT = Duration.ofSeconds(30);

    /** An error as the manager reports it; the pod worker puts the message into the pod's event. */
    static final class DraException extends Exception {
        DraException(String message) {
            super(message);
        }

        DraException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private record DeviceHealthState(String health, String message, Instant lastUpdated, Duration timeout) {}

    private final KubeletConfig config;
    private final KubernetesClient client;
    private DraPluginManager plugins;
    private final Consumer<Set<String>> healthChangedForPods;

    private final Object lock = new Object();
    /** Namespace/name to entry. */
    private final Map<String, ClaimInfo> cache = new LinkedHashMap<>();
    /** Driver to "pool/device" to health. */
    private final Map<String, Map<String, DeviceHealthState>> health = new HashMap<>();

    /**
     * @param healthChangedForPods called with the UIDs of pods whose devices' health changed
     */
    DraManager(KubeletConfig config, KubernetesClient client, Consumer<Set<String>> healthChangedForPods) {
        this.config = config;
        this.client = client;
        this.healthChangedForPods = healthChangedForPods;
    }

    void setPlugins(DraPluginManager plugins) {
        this.plugins = plugins;
    }

    /** Loads the checkpoint (a kubelet (re)start); the entries are not prepared. */
    void load() throws IOException {
        List<ClaimInfo> restored = Checkpoint.read(config.checkpointFile());
        synchronized (lock) {
            cache.clear();
            health.clear();
            restored.forEach(claim -> cache.put(claim.key(), claim));
        }
    }

    /** Prepares the pod's claims; the message of the exception is what upstream's error reads. */
    void prepare(Pod pod) throws DraException {
        String namespace = pod.getMetadata().getNamespace();
        String podUid = pod.getMetadata().getUid();
        // Validation pass without touching the cache, so that a pod that cannot be prepared can be deleted without
        // the kubelet having to unprepare anything.
        List<ResourceClaim> claims = new ArrayList<>();
        Map<String, DraPlugin> pluginsByDriver = new TreeMap<>();
        for (PodResourceClaim podClaim : podClaims(pod)) {
            ClaimName name = claimName(pod, podClaim);
            if (name.name() == null) {
                continue;
            }
            ResourceClaim claim = fetch(namespace, name.name());
            if (name.mustCheckOwner()) {
                checkOwner(pod, claim, podGroupClaims());
            }
            if (!isReservedFor(claim, podUid) && !(podGroupClaims() && PodGroupClaims.isReservedForGroupOf(claim, pod))) {
                throw new DraException("pod " + pod.getMetadata().getName() + " (" + podUid
                        + ") is not allowed to use ResourceClaim " + name.name() + " ("
                        + claim.getMetadata().getUid() + ")");
            }
            if (claim.getStatus() == null || claim.getStatus().getAllocation() == null) {
                throw new DraException("ResourceClaim " + name.name() + ": not allocated");
            }
            Map<String, Set<String>> skipped = skippedOperations(claim);
            for (String driver : drivers(claim)) {
                // a driver whose devices skip preparation may have no node plugin at all
                if (skipped.getOrDefault(driver, Set.of()).contains(ClaimInfo.NODE_PREPARE_RESOURCES)) {
                    continue;
                }
                if (!pluginsByDriver.containsKey(driver)) {
                    try {
                        pluginsByDriver.put(driver, plugins.get(driver));
                    } catch (DraPluginManager.NotRegisteredException e) {
                        throw new DraException(e.getMessage());
                    }
                }
            }
            claims.add(claim);
        }
        Map<String, List<Claim>> batches = new TreeMap<>();
        Set<String> toPrepare = new LinkedHashSet<>();
        synchronized (lock) {
            for (ResourceClaim claim : claims) {
                String claimName = claim.getMetadata().getName();
                String claimUid = claim.getMetadata().getUid();
                ClaimInfo info = cache.get(ClaimInfo.key(namespace, claimName));
                if (info == null) {
                    info = new ClaimInfo(claimUid, claimName, namespace);
                    for (String driver : drivers(claim)) {
                        info.driverState.put(driver, new ArrayList<>());
                    }
                    info.skippedOperations.putAll(skippedOperations(claim));
                    cache.put(info.key(), info);
                } else if (!info.claimUid.equals(claimUid)) {
                    throw new DraException("old ResourceClaim with same name " + claimName + " and different UID "
                            + info.claimUid + " still exists (previous pod force-deleted?!)");
                }
                info.podUids.add(podUid);
                checkpoint("checkpoint ResourceClaim cache");
                if (info.prepared) {
                    continue;
                }
                toPrepare.add(info.key());
                Claim request = Claim.newBuilder().setNamespace(namespace).setUid(claimUid).setName(claimName)
                        .build();
                for (String driver : info.driverState.keySet()) {
                    if (!info.skips(driver, ClaimInfo.NODE_PREPARE_RESOURCES)) {
                        batches.computeIfAbsent(driver, d -> new ArrayList<>()).add(request);
                    }
                }
            }
        }
        for (Map.Entry<String, List<Claim>> batch : batches.entrySet()) {
            DraPlugin plugin = pluginsByDriver.get(batch.getKey());
            NodePrepareResourcesResponse response;
            try {
                response = plugin.prepare(NodePrepareResourcesRequest.newBuilder().addAllClaims(batch.getValue())
                        .build());
            } catch (StatusRuntimeException e) {
                throw new DraException("NodePrepareResources: " + GrpcErrors.text(e), e);
            }
            for (Map.Entry<String, NodePrepareResourceResponse> result : response.getClaimsMap().entrySet()) {
                Claim requested = find(batch.getValue(), result.getKey());
                if (requested == null) {
                    throw new DraException("NodePrepareResources returned result for unknown claim UID "
                            + result.getKey());
                }
                if (!result.getValue().getError().isEmpty()) {
                    throw new DraException("NodePrepareResources failed for ResourceClaim " + requested.getName()
                            + ": " + result.getValue().getError());
                }
                synchronized (lock) {
                    ClaimInfo info = cache.get(ClaimInfo.key(namespace, requested.getName()));
                    if (info == null) {
                        throw new DraException("internal error: unable to get claim info for ResourceClaim "
                                + requested.getName());
                    }
                    List<ClaimInfo.Device> devices = new ArrayList<>();
                    for (Device device : result.getValue().getDevicesList()) {
                        devices.add(new ClaimInfo.Device(device.getPoolName(), device.getDeviceName(),
                                device.hasShareId() ? device.getShareId() : null, device.getRequestNamesList(),
                                device.getCdiDeviceIdsList()));
                    }
                    info.driverState.put(plugin.driverName, devices);
                }
            }
            int skipped = batch.getValue().size() - response.getClaimsCount();
            if (skipped != 0) {
                throw new DraException("NodePrepareResources skipped " + skipped + " ResourceClaims");
            }
        }
        synchronized (lock) {
            for (String key : toPrepare) {
                ClaimInfo info = cache.get(key);
                if (info != null) {
                    info.prepared = true;
                }
            }
            checkpoint("checkpoint ResourceClaim state");
        }
    }

    /** Unprepares the claims of a pod whose containers have all stopped. */
    void unprepare(Pod pod) throws DraException {
        List<String> names = new ArrayList<>();
        for (PodResourceClaim podClaim : podClaims(pod)) {
            ClaimName name = claimName(pod, podClaim);
            if (name.name() != null) {
                names.add(name.name());
            }
        }
        unprepare(pod.getMetadata().getUid(), pod.getMetadata().getNamespace(), names);
    }

    private void unprepare(String podUid, String namespace, List<String> claimNames) throws DraException {
        Map<String, List<Claim>> batches = new TreeMap<>();
        Set<String> toRemove = new HashSet<>();
        boolean changed = false;
        synchronized (lock) {
            for (String claimName : claimNames) {
                ClaimInfo info = cache.get(ClaimInfo.key(namespace, claimName));
                if (info == null || !info.podUids.contains(podUid)) {
                    continue;
                }
                if (info.podUids.size() > 1) {
                    info.podUids.remove(podUid);
                    changed = true;
                    continue;
                }
                toRemove.add(info.key());
                Claim request = Claim.newBuilder().setNamespace(namespace).setUid(info.claimUid)
                        .setName(info.claimName).build();
                for (String driver : info.driverState.keySet()) {
                    if (!info.skips(driver, ClaimInfo.NODE_UNPREPARE_RESOURCES)) {
                        batches.computeIfAbsent(driver, d -> new ArrayList<>()).add(request);
                    }
                }
            }
            if (changed && toRemove.isEmpty()) {
                checkpoint("checkpoint ResourceClaim state");
            }
        }
        for (Map.Entry<String, List<Claim>> batch : batches.entrySet()) {
            DraPlugin plugin;
            try {
                plugin = plugins.get(batch.getKey());
            } catch (DraPluginManager.NotRegisteredException e) {
                throw new DraException(e.getMessage());
            }
            NodeUnprepareResourcesResponse response;
            try {
                response = plugin.unprepare(NodeUnprepareResourcesRequest.newBuilder()
                        .addAllClaims(batch.getValue()).build());
            } catch (StatusRuntimeException e) {
                throw new DraException("NodeUnprepareResources: " + GrpcErrors.text(e), e);
            }
            for (Map.Entry<String, NodeUnprepareResourceResponse> result : response.getClaimsMap().entrySet()) {
                Claim requested = find(batch.getValue(), result.getKey());
                if (requested == null) {
                    throw new DraException("NodeUnprepareResources returned result for unknown claim UID "
                            + result.getKey());
                }
                if (!result.getValue().getError().isEmpty()) {
                    throw new DraException("NodeUnprepareResources failed for ResourceClaim " + requested.getName()
                            + ": " + result.getValue().getError());
                }
            }
            int skipped = batch.getValue().size() - response.getClaimsCount();
            if (skipped != 0) {
                throw new DraException("NodeUnprepareResources skipped " + skipped + " ResourceClaims");
            }
        }
        if (!toRemove.isEmpty()) {
            synchronized (lock) {
                toRemove.forEach(cache::remove);
                checkpoint("checkpoint ResourceClaim state");
            }
        }
    }

    /**
     * Unprepares the claims of pods that are no longer active (force-deleted pods, terminations the kubelet missed).
     * Failures are logged and retried at the next period.
     */
    void reconcile(Set<String> activePodUids) {
        Map<String, Map.Entry<String, List<String>>> inactive = new LinkedHashMap<>();
        synchronized (lock) {
            for (ClaimInfo info : cache.values()) {
                for (String podUid : info.podUids) {
                    if (!activePodUids.contains(podUid)) {
                        inactive.computeIfAbsent(podUid, uid -> Map.entry(info.namespace, new ArrayList<>()))
                                .getValue().add(info.claimName);
                    }
                }
            }
        }
        for (Map.Entry<String, Map.Entry<String, List<String>>> pod : inactive.entrySet()) {
            try {
                unprepare(pod.getKey(), pod.getValue().getKey(), pod.getValue().getValue());
                LOG.info("node {}: unprepared claims {} of the vanished pod {}", config.nodeName(),
                        pod.getValue().getValue(), pod.getKey());
            } catch (DraException e) {
                LOG.info("node {}: unpreparing claims of pod {} in the reconcile loop failed, will retry: {}",
                        config.nodeName(), pod.getKey(), e.getMessage());
            }
        }
    }

    /**
     * The CDI device IDs of a container ({@code GetResources}): for each of its {@code resources.claims} entries,
     * the devices of that pod claim, filtered by the entry's request.
     */
    List<String> cdiDevices(Pod pod, Container container) throws DraException {
        List<String> ids = new ArrayList<>();
        for (PodResourceClaim podClaim : pod.getSpec().getResourceClaims()) {
            ClaimName name = claimName(pod, podClaim);
            if (name.name() == null || container.getResources() == null) {
                continue;
            }
            for (var entry : container.getResources().getClaims()) {
                if (!podClaim.getName().equals(entry.getName())) {
                    continue;
                }
                synchronized (lock) {
                    ClaimInfo info = cache.get(ClaimInfo.key(pod.getMetadata().getNamespace(), name.name()));
                    if (info == null) {
                        throw new DraException("internal error: unable to get claim info for ResourceClaim "
                                + name.name());
                    }
                    ids.addAll(info.cdiDevices(entry.getRequest()));
                }
            }
        }
        ids.addAll(extendedResourceDevices(pod, container));
        return ids;
    }

    /**
     * The devices of the scheduler's extended-resource claim that {@code status.extendedResourceClaimStatus} maps to
     * the container's non-zero requests.
     */
    private List<String> extendedResourceDevices(Pod pod, Container container) throws DraException {
        if (!config.featureGates().enabled(FeatureGates.DRA_EXTENDED_RESOURCE) || pod.getStatus() == null
                || pod.getStatus().getExtendedResourceClaimStatus() == null || container.getResources() == null
                || container.getResources().getRequests() == null) {
            return List.of();
        }
        PodExtendedResourceClaimStatus status = pod.getStatus().getExtendedResourceClaimStatus();
        List<String> ids = new ArrayList<>();
        synchronized (lock) {
            ClaimInfo info = cache.get(ClaimInfo.key(pod.getMetadata().getNamespace(), status.getResourceClaimName()));
            if (info == null) {
                throw new DraException("unable to get claim info for claim " + status.getResourceClaimName()
                        + " in namespace " + pod.getMetadata().getNamespace());
            }
            for (var request : container.getResources().getRequests().entrySet()) {
                if (io.kdra.kube.Quantity.fromFabric8(request.getValue()).isZero()) {
                    continue;
                }
                for (ContainerExtendedResourceRequest mapping : status.getRequestMappings()) {
                    if (container.getName().equals(mapping.getContainerName())
                            && request.getKey().equals(mapping.getResourceName())) {
                        ids.addAll(info.cdiDevices(mapping.getRequestName()));
                    }
                }
            }
        }
        return ids;
    }

    /**
     * The container's {@code allocatedResourcesStatus}: one entry {@code claim:<pod claim>[/<request>]} per
     * {@code resources.claims} entry, listing every device of the claim with its health; null without the gate or
     * without devices.
     */
    List<ResourceStatus> allocatedResourcesStatus(Pod pod, Container container) {
        if (!config.featureGates().enabled(FeatureGates.RESOURCE_HEALTH_STATUS) || container.getResources() == null
                || container.getResources().getClaims().isEmpty()) {
            return null;
        }
        boolean withMessage = config.featureGates().enabled(FeatureGates.RESOURCE_HEALTH_STATUS_MESSAGE);
        Instant now = Instant.now();
        List<ResourceStatus> statuses = new ArrayList<>();
        synchronized (lock) {
            for (var entry : container.getResources().getClaims()) {
                String claimName = null;
                for (PodResourceClaim podClaim : pod.getSpec().getResourceClaims()) {
                    if (podClaim.getName().equals(entry.getName())) {
                        try {
                            claimName = claimName(pod, podClaim).name();
                        } catch (DraException e) {
                            claimName = null;
                        }
                    }
                }
                ClaimInfo info = claimName == null ? null
                        : cache.get(ClaimInfo.key(pod.getMetadata().getNamespace(), claimName));
                if (info == null) {
                    continue;
                }
                List<ResourceHealth> resources = new ArrayList<>();
                for (Map.Entry<String, List<ClaimInfo.Device>> driver : info.driverState.entrySet()) {
                    for (ClaimInfo.Device device : driver.getValue()) {
                        DeviceHealthState state = health.getOrDefault(driver.getKey(), Map.of())
                                .get(device.poolName() + "/" + device.deviceName());
                        boolean current = state != null && !state.lastUpdated().plus(state.timeout()).isBefore(now);
                        ResourceHealth resource = new ResourceHealth();
                        resource.setResourceID(device.cdiDeviceIds().isEmpty()
                                ? driver.getKey() + "/" + device.poolName() + "/" + device.deviceName()
                                : device.cdiDeviceIds().get(0));
                        resource.setHealth(current ? state.health() : "Unknown");
                        if (withMessage && current && !state.message().isEmpty()) {
                            resource.setMessage(state.message());
                        }
                        resources.add(resource);
                    }
                }
                if (!resources.isEmpty()) {
                    ResourceStatus status = new ResourceStatus();
                    status.setName(entry.getRequest() == null || entry.getRequest().isEmpty()
                            ? "claim:" + entry.getName() : "claim:" + entry.getName() + "/" + entry.getRequest());
                    status.setResources(resources);
                    statuses.add(status);
                }
            }
        }
        return statuses.isEmpty() ? null : statuses;
    }

    @Override
    public void onHealth(String driverName, List<DeviceHealth> devices) {
        Set<String> changed = new HashSet<>();
        synchronized (lock) {
            Map<String, DeviceHealthState> known = health.computeIfAbsent(driverName, d -> new HashMap<>());
            for (DeviceHealth device : devices) {
                String key = device.getDevice().getPoolName() + "/" + device.getDevice().getDeviceName();
                String value = switch (device.getHealth()) {
                    case HEALTHY -> "Healthy";
                    case UNHEALTHY -> "Unhealthy";
                    default -> "Unknown";
                };
                Duration timeout = device.getHealthCheckTimeoutSeconds() > 0
                        ? Duration.ofSeconds(device.getHealthCheckTimeoutSeconds()) : DEFAULT_HEALTH_TIMEOUT;
                // The timeout runs from when the report arrived: the plugin's clock is not the kubelet's.
                DeviceHealthState state = new DeviceHealthState(value, device.getMessage(), Instant.now(), timeout);
                DeviceHealthState previous = known.put(key, state);
                if (previous == null || !previous.health().equals(value)
                        || !previous.message().equals(state.message())) {
                    changed.add(key);
                }
            }
        }
        notifyPodsUsing(driverName, changed);
    }

    @Override
    public void onStreamEnded(String driverName) {
        Set<String> cleared;
        synchronized (lock) {
            Map<String, DeviceHealthState> removed = health.remove(driverName);
            cleared = removed == null ? Set.of() : removed.keySet();
        }
        notifyPodsUsing(driverName, cleared);
    }

    private void notifyPodsUsing(String driverName, Set<String> devices) {
        if (devices.isEmpty()) {
            return;
        }
        Set<String> pods = new HashSet<>();
        synchronized (lock) {
            for (ClaimInfo info : cache.values()) {
                for (ClaimInfo.Device device : info.driverState.getOrDefault(driverName, List.of())) {
                    if (devices.contains(device.poolName() + "/" + device.deviceName())) {
                        pods.addAll(info.podUids);
                    }
                }
            }
        }
        if (!pods.isEmpty()) {
            healthChangedForPods.accept(pods);
        }
    }

    /** {@code dra_resource_claims_in_use} in the Prometheus text format: per driver and {@code <any>}. */
    String metrics() {
        Map<String, Integer> byDriver = new TreeMap<>();
        int any = 0;
        synchronized (lock) {
            for (ClaimInfo info : cache.values()) {
                if (info.podUids.isEmpty()) {
                    continue;
                }
                any++;
                for (String driver : info.driverState.keySet()) {
                    byDriver.merge(driver, 1, Integer::sum);
                }
            }
        }
        StringBuilder text = new StringBuilder();
        text.append("# HELP dra_resource_claims_in_use [ALPHA] The number of ResourceClaims that are currently in use"
                + " on the node, by driver name (driver_name label value) and across all drivers (special value <any>"
                + " for driver_name). Note that the sum of all by-driver counts is not the total number of in-use"
                + " ResourceClaims because the same ResourceClaim might use devices from different drivers. Instead,"
                + " use the count for the <any> driver_name.\n");
        text.append("# TYPE dra_resource_claims_in_use gauge\n");
        text.append("dra_resource_claims_in_use{driver_name=\"<any>\"} ").append(any).append('\n');
        byDriver.forEach((driver, count) -> text.append("dra_resource_claims_in_use{driver_name=\"")
                .append(driver.replace("\\", "\\\\").replace("\"", "\\\"")).append("\"} ").append(count)
                .append('\n'));
        return text.toString();
    }

    /** Call with the lock held. */
    private void checkpoint(String what) throws DraException {
        try {
            Checkpoint.write(config.checkpointFile(), cache.values());
        } catch (IOException e) {
            throw new DraException(what + ": " + e.getMessage(), e);
        }
    }

    private ResourceClaim fetch(String namespace, String name) throws DraException {
        try {
            var claim = client.dynamicResourceAllocation().v1().resourceClaims().inNamespace(namespace)
                    .withName(name).get();
            if (claim == null) {
                throw new DraException("fetch ResourceClaim " + name + ": resourceclaims.resource.k8s.io \"" + name
                        + "\" not found");
            }
            return claim;
        } catch (KubernetesClientException e) {
            throw new DraException("fetch ResourceClaim " + name + ": " + e.getMessage(), e);
        }
    }

    /** Pod claims the kubelet prepares: the pod's own, plus the scheduler's extended-resource claim when gated on. */
    private List<PodResourceClaim> podClaims(Pod pod) {
        List<PodResourceClaim> claims = new ArrayList<>(pod.getSpec().getResourceClaims());
        if (config.featureGates().enabled(FeatureGates.DRA_EXTENDED_RESOURCE) && pod.getStatus() != null
                && pod.getStatus().getExtendedResourceClaimStatus() != null) {
            PodResourceClaim extended = new PodResourceClaim();
            extended.setResourceClaimName(pod.getStatus().getExtendedResourceClaimStatus().getResourceClaimName());
            claims.add(extended);
        }
        return claims;
    }

    /** A pod claim's ResourceClaim name (null: none needed) and whether the claim must be owned by the pod. */
    record ClaimName(String name, boolean mustCheckOwner) {}

    /** Upstream's {@code resourceclaim.Name}. */
    static ClaimName claimName(Pod pod, PodResourceClaim podClaim) throws DraException {
        if (podClaim.getResourceClaimName() != null) {
            return new ClaimName(podClaim.getResourceClaimName(), false);
        }
        if (podClaim.getResourceClaimTemplateName() != null) {
            if (pod.getStatus() != null) {
                for (PodResourceClaimStatus status : pod.getStatus().getResourceClaimStatuses()) {
                    if (Objects.equals(status.getName(), podClaim.getName())) {
                        return new ClaimName(status.getResourceClaimName(), true);
                    }
                }
            }
            throw new DraException("pod \"" + pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName()
                    + "\": ResourceClaim not created yet");
        }
        throw new DraException("pod \"" + pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName()
                + "\", spec.resourceClaim \"" + podClaim.getName() + "\": unsupported API");
    }

    /** Whether a pod may use the claims reserved for, or generated for, its PodGroup (KEP-5729). */
    private boolean podGroupClaims() {
        return config.featureGates().enabled(FeatureGates.GENERIC_WORKLOAD)
                && config.featureGates().enabled(FeatureGates.DRA_WORKLOAD_RESOURCE_CLAIMS);
    }

    /** The claim was generated for the pod, or (with {@code groupClaims}) for the pod's PodGroup. */
    private static void checkOwner(Pod pod, ResourceClaim claim, boolean groupClaims) throws DraException {
        if (groupClaims && PodGroupClaims.isForGroupOf(claim, pod)) {
            return;
        }
        for (OwnerReference owner : claim.getMetadata().getOwnerReferences()) {
            if (Boolean.TRUE.equals(owner.getController())) {
                if (owner.getUid().equals(pod.getMetadata().getUid())) {
                    return;
                }
                break;
            }
        }
        throw new DraException("ResourceClaim " + claim.getMetadata().getName() + " was not created for pod "
                + pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName() + " (pod is not owner)");
    }

    private static boolean isReservedFor(ResourceClaim claim, String podUid) {
        if (claim.getStatus() == null) {
            return false;
        }
        for (ResourceClaimConsumerReference consumer : claim.getStatus().getReservedFor()) {
            if (podUid.equals(consumer.getUid())) {
                return true;
            }
        }
        return false;
    }

    /**
     * Per driver, the node operations all of its devices in the claim skip.
     *
     * @throws DraException if the claim asks to skip any while the DRAOptionalNodeOperations gate is off
     */
    private Map<String, Set<String>> skippedOperations(ResourceClaim claim) throws DraException {
        var devices = claim.getStatus().getAllocation().getDevices();
        if (devices == null) {
            return Map.of();
        }
        boolean asksToSkip = devices.getResults().stream().anyMatch(result -> !result.getSkipNodeOperations().isEmpty());
        if (asksToSkip && !config.featureGates().enabled(FeatureGates.DRA_OPTIONAL_NODE_OPERATIONS)) {
            throw new DraException("DRAOptionalNodeOperations feature gate is disabled on kubelet");
        }
        return ClaimInfo.skippedOperations(devices.getResults());
    }

    private static Set<String> drivers(ResourceClaim claim) {
        Set<String> drivers = new LinkedHashSet<>();
        var devices = claim.getStatus().getAllocation().getDevices();
        if (devices != null) {
            for (DeviceRequestAllocationResult result : devices.getResults()) {
                drivers.add(result.getDriver());
            }
        }
        return drivers;
    }

    private static Claim find(List<Claim> claims, String uid) {
        for (Claim claim : claims) {
            if (claim.getUid().equals(uid)) {
                return claim;
            }
        }
        return null;
    }
}
