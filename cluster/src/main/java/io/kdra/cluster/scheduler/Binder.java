package io.kdra.cluster.scheduler;

import io.fabric8.kubernetes.api.model.ContainerExtendedResourceRequest;
import io.fabric8.kubernetes.api.model.NodeAllocatableResourceClaimStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.resource.v1.AllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.AllocationResultBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimConsumerReference;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimStatus;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The binding cycle of one pod, on a binder thread: DynamicResources' PreBind (for each claim not yet reserved for the
 * pod: the finalizer {@code resource.kubernetes.io/delete-protection} through an update, then allocation and
 * {@code reservedFor} in one status update, retried on conflicts; then waiting for binding conditions), then the
 * DefaultBinder's {@code pods/binding}. On failure it removes the pod from the claims' {@code reservedFor} again
 * (Unreserve) and reports, so the scheduler can try the pod again.
 */
final class Binder {

    private static final Logger LOG = LoggerFactory.getLogger(Binder.class);
    /** client-go's retry.DefaultRetry: five attempts. */
    private static final int CONFLICT_ATTEMPTS = 5;
    private static final long REQUEST_TIMEOUT_SECONDS = 60;

    /** A claim to reserve for the pod; {@code allocation} is set when the scheduler allocated it in this cycle. */
    record ClaimToBind(ResourceClaim claim, AllocationResult allocation) {}

    /**
     * The special claim for the pod's extended resources backed by DRA: created in PreBind, then allocated and
     * reserved like the others, and recorded in the pod's {@code status.extendedResourceClaimStatus}.
     *
     * @param inMemory the claim as the cycle built it (temporary name and uid, the uid marks the allocation in flight)
     */
    record ExtendedClaim(ResourceClaim inMemory, AllocationResult allocation,
            List<ContainerExtendedResourceRequest> mappings) {}

    /**
     * @param extended the pod's special claim for extended resources, or null
     * @param nodeAllocatable the pod's {@code status.nodeAllocatableResourceClaimStatuses} to write; empty: none
     */
    record BindTask(String key, Pod pod, String node, List<ClaimToBind> claims, ExtendedClaim extended,
            List<NodeAllocatableResourceClaimStatus> nodeAllocatable) {}

    /** Where the binder reports; the scheduler applies the reports on its own thread. */
    interface Results {
        /** A claim now reserved (and, when {@code allocatedUid} is set, allocated) as written. */
        void claimWritten(ResourceClaim written, String allocatedUid);

        void bound(BindTask task);

        void failed(BindTask task, String message);
    }

    /** A failed step, with upstream's message. */
    static final class BindException extends Exception {
        BindException(String message) {
            super(message);
        }
    }

    private final KubernetesClient client;
    private final SchedulerCache cache;
    private final Reporter reporter;
    private final Results results;
    private final boolean bindingConditions;
    private final Duration bindingTimeout;
    private final String apiBase;

    Binder(KubernetesClient client, SchedulerCache cache, Reporter reporter, Results results, boolean bindingConditions,
            Duration bindingTimeout) {
        this.client = client;
        this.cache = cache;
        this.reporter = reporter;
        this.results = results;
        this.bindingConditions = bindingConditions;
        this.bindingTimeout = bindingTimeout;
        String master = client.getMasterUrl().toString();
        this.apiBase = master.endsWith("/") ? master.substring(0, master.length() - 1) : master;
    }

    void bind(BindTask task) {
        Pod pod = task.pod();
        List<ResourceClaim> reserved = new ArrayList<>();
        ResourceClaim createdExtended = null;
        boolean nodeAllocatableWritten = false;
        try {
            for (ClaimToBind claim : task.claims()) {
                if (claim.allocation() == null && DynamicResources.reservedFor(claim.claim(), pod)) {
                    reserved.add(claim.claim());
                    continue;
                }
                ResourceClaim written;
                try {
                    written = bindClaim(claim, pod);
                } catch (BindException e) {
                    throw new BindException("running PreBind plugin \"" + DynamicResources.PLUGIN + "\": "
                            + e.getMessage());
                }
                reserved.add(written);
                results.claimWritten(written, claim.allocation() == null ? null : written.getMetadata().getUid());
            }
            if (task.extended() != null) {
                try {
                    createdExtended = createExtendedClaim(task.extended().inMemory());
                    ResourceClaim written = bindClaim(new ClaimToBind(createdExtended, task.extended().allocation()),
                            pod);
                    reserved.add(written);
                    results.claimWritten(written, task.extended().inMemory().getMetadata().getUid());
                    recordExtendedClaim(pod, written.getMetadata().getName(), task.extended().mappings());
                } catch (BindException e) {
                    throw new BindException("running PreBind plugin \"" + DynamicResources.PLUGIN + "\": "
                            + e.getMessage());
                }
            }
            if (!task.nodeAllocatable().isEmpty()) {
                nodeAllocatableWritten = true;
                recordNodeAllocatable(pod, task.nodeAllocatable());
            }
            if (bindingConditions && reserved.stream().anyMatch(DynamicResources::hasBindingConditions)) {
                reporter.event(pod, "Normal", "BindingConditionsPending", "Scheduling",
                        "waiting for binding conditions for device on node " + task.node());
                try {
                    awaitBindingConditions(reserved);
                } catch (BindException e) {
                    throw new BindException("running PreBind plugin \"" + DynamicResources.PLUGIN + "\": "
                            + e.getMessage());
                }
            }
            postBinding(pod, task.node());
        } catch (BindException e) {
            unreserve(reserved, pod);
            if (createdExtended != null) {
                deleteExtendedClaim(createdExtended);
            }
            if (nodeAllocatableWritten) {
                clearNodeAllocatable(pod);
            }
            results.failed(task, e.getMessage());
            return;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            results.failed(task, "scheduler stopped");
            return;
        }
        reporter.scheduled(pod, task.node());
        results.bound(task);
    }

    private ResourceClaim bindClaim(ClaimToBind toBind, Pod pod) throws BindException {
        ResourceClaim claim = toBind.claim();
        String name = SchedulerCache.key(claim);
        AllocationResult allocation = toBind.allocation();
        for (int attempt = 1; ; attempt++) {
            if (attempt > 1) {
                try {
                    claim = client.resources(ResourceClaim.class).inNamespace(claim.getMetadata().getNamespace())
                            .withName(claim.getMetadata().getName()).get();
                } catch (KubernetesClientException e) {
                    throw new BindException("get updated claim " + name + " after conflict: "
                            + Reporter.statusMessage(e));
                }
                if (claim == null) {
                    throw new BindException("get updated claim " + name + " after conflict: resourceclaims.resource"
                            + ".k8s.io \"" + toBind.claim().getMetadata().getName() + "\" not found");
                }
            }
            if (claim.getMetadata().getDeletionTimestamp() != null) {
                throw new BindException("claim " + name + " got deleted in the meantime");
            }
            ResourceClaimBuilder update = new ResourceClaimBuilder(claim);
            try {
                if (allocation != null) {
                    if (DynamicResources.allocationOf(claim) != null) {
                        throw new BindException("claim " + name + " got allocated elsewhere in the meantime");
                    }
                    List<String> finalizers = claim.getMetadata().getFinalizers();
                    if (finalizers == null || !finalizers.contains(DynamicResources.FINALIZER)) {
                        claim = client.resources(ResourceClaim.class).inNamespace(claim.getMetadata().getNamespace())
                                .resource(new ResourceClaimBuilder(claim).editMetadata()
                                        .addToFinalizers(DynamicResources.FINALIZER).endMetadata().build())
                                .update();
                        update = new ResourceClaimBuilder(claim);
                    }
                }
                ResourceClaimStatus status = claim.getStatus() == null ? new ResourceClaimStatus()
                        : new ResourceClaimStatusBuilder(claim.getStatus())
                                .build();
                AllocationResult newAllocation = allocation != null ? allocation : status.getAllocation();
                if (bindingConditions && newAllocation != null && newAllocation.getAllocationTimestamp() == null) {
                    newAllocation = new AllocationResultBuilder(newAllocation)
                            .withAllocationTimestamp(Instant.now().truncatedTo(ChronoUnit.SECONDS).toString()).build();
                }
                status.setAllocation(newAllocation);
                List<ResourceClaimConsumerReference> reservedFor = new ArrayList<>(
                        DynamicResources.reservedForOf(claim));
                ResourceClaimConsumerReference consumer = DynamicResources.consumer(cache, pod, claim);
                if (!reservedFor.contains(consumer)) {
                    reservedFor.add(consumer);
                }
                status.setReservedFor(reservedFor);
                return client.resources(ResourceClaim.class).inNamespace(claim.getMetadata().getNamespace())
                        .resource(update.withStatus(status).build()).status().update();
            } catch (KubernetesClientException e) {
                if (e.getCode() == 409 && attempt < CONFLICT_ATTEMPTS) {
                    LOG.debug("conflict writing claim {}; retrying", name);
                    continue;
                }
                boolean finalizerStep = allocation != null && (claim.getMetadata().getFinalizers() == null
                        || !claim.getMetadata().getFinalizers().contains(DynamicResources.FINALIZER));
                if (finalizerStep) {
                    throw new BindException("add finalizer to claim " + name + ": " + Reporter.statusMessage(e));
                }
                throw new BindException((allocation != null ? "add allocation and reservation to claim "
                        : "add reservation to claim ") + name + ": " + Reporter.statusMessage(e));
            }
        }
    }

    /** Creates the special claim with a generated name {@code <pod>-extended-resources-<random>}. */
    private ResourceClaim createExtendedClaim(ResourceClaim inMemory) throws BindException {
        ResourceClaim toCreate = new ResourceClaimBuilder(inMemory).editMetadata().withName(null).withUid(null)
                .endMetadata().withStatus(null).build();
        try {
            return client.resources(ResourceClaim.class).inNamespace(inMemory.getMetadata().getNamespace())
                    .resource(toCreate).create();
        } catch (KubernetesClientException e) {
            throw new BindException("create claim for extended resources " + inMemory.getMetadata().getNamespace()
                    + "/" + inMemory.getMetadata().getGenerateName() + ": " + Reporter.statusMessage(e));
        }
    }

    /** Upstream's patchPodExtendedResourceClaimStatus: the claim's name and which container uses which request. */
    private void recordExtendedClaim(Pod pod, String claimName, List<ContainerExtendedResourceRequest> mappings)
            throws BindException {
        Map<String, Object> claimStatus = new LinkedHashMap<>();
        claimStatus.put("requestMappings", mappings);
        claimStatus.put("resourceClaimName", claimName);
        Map<String, Object> patch = Map.of("metadata", Map.of("uid", pod.getMetadata().getUid()),
                "status", Map.of("extendedResourceClaimStatus", claimStatus));
        try {
            client.pods().inNamespace(pod.getMetadata().getNamespace()).withName(pod.getMetadata().getName())
                    .subresource("status").patch(PatchContext.of(PatchType.STRATEGIC_MERGE),
                            client.getKubernetesSerialization().asJson(patch));
        } catch (KubernetesClientException e) {
            throw new BindException("update pod " + SchedulerCache.key(pod) + " ExtendedResourceClaimStatus: "
                    + Reporter.statusMessage(e));
        }
    }

    /**
     * Upstream's patchNodeAllocatableResourceClaimStatus: what the pod's claims' devices add to the node's resources,
     * written before the binding so that the kubelet finds it on the bound pod.
     */
    private void recordNodeAllocatable(Pod pod, List<NodeAllocatableResourceClaimStatus> statuses)
            throws BindException {
        try {
            patchStatus(pod, statuses);
        } catch (KubernetesClientException e) {
            throw new BindException("running PreBind plugin \"" + DynamicResources.PLUGIN + "\": updating pod "
                    + SchedulerCache.key(pod) + " NodeAllocatableResourceClaimStatuses: " + Reporter.statusMessage(e));
        }
    }

    /** Upstream's Unreserve clears the statuses again: the next attempt may choose other devices. */
    private void clearNodeAllocatable(Pod pod) {
        try {
            patchStatus(pod, null);
        } catch (KubernetesClientException e) {
            LOG.warn("clear NodeAllocatableResourceClaimStatuses of pod {}: {}", SchedulerCache.key(pod),
                    Reporter.statusMessage(e));
        }
    }

    /** Sets the pod's statuses, or removes them ({@code null}), with a patch that needs no fresh pod. */
    private void patchStatus(Pod pod, List<NodeAllocatableResourceClaimStatus> statuses) {
        String value = statuses == null ? "null" : client.getKubernetesSerialization().asJson(statuses);
        String patch = String.format("{\"metadata\":{\"uid\":\"%s\"},\"status\":{"
                + "\"nodeAllocatableResourceClaimStatuses\":%s}}", pod.getMetadata().getUid(), value);
        client.pods().inNamespace(pod.getMetadata().getNamespace()).withName(pod.getMetadata().getName())
                .subresource("status").patch(PatchContext.of(PatchType.STRATEGIC_MERGE), patch);
    }

    /**
     * Removes a special claim that no binding will use (its pod failed to bind, or it stayed from an earlier attempt):
     * first the scheduler's finalizer, then the claim.
     */
    void deleteExtendedClaim(ResourceClaim claim) {
        String namespace = claim.getMetadata().getNamespace();
        String name = claim.getMetadata().getName();
        try {
            ResourceClaim current = claim;
            for (int attempt = 1; ; attempt++) {
                List<String> finalizers = new ArrayList<>(Lists.orEmpty(current.getMetadata().getFinalizers()));
                if (!finalizers.remove(DynamicResources.FINALIZER)) {
                    break;
                }
                try {
                    client.resources(ResourceClaim.class).inNamespace(namespace).resource(new ResourceClaimBuilder(
                            current).editMetadata().withFinalizers(finalizers).endMetadata().build()).update();
                    break;
                } catch (KubernetesClientException e) {
                    if (e.getCode() != 409 || attempt >= CONFLICT_ATTEMPTS) {
                        throw e;
                    }
                    current = client.resources(ResourceClaim.class).inNamespace(namespace).withName(name).get();
                    if (current == null) {
                        return;
                    }
                }
            }
            client.resources(ResourceClaim.class).inNamespace(namespace).withName(name).delete();
        } catch (KubernetesClientException e) {
            LOG.warn("delete extended resource claim {}/{}: {}", namespace, name, Reporter.statusMessage(e));
        }
    }

    /** Waits until every device's binding conditions are true; a failure condition or the timeout ends it. */
    private void awaitBindingConditions(List<ResourceClaim> written) throws BindException, InterruptedException {
        long deadline = System.nanoTime() + bindingTimeout.toNanos();
        while (true) {
            long version = cache.claimVersion();
            boolean ready = true;
            for (ResourceClaim own : written) {
                ResourceClaim claim = latest(own);
                DynamicResources.BindingState state = DynamicResources.bindingState(claim);
                if (state.failure() != null) {
                    throw new BindException(state.failure());
                }
                if (!state.ready()) {
                    ready = false;
                    if (System.nanoTime() >= deadline) {
                        throw new BindException("claim " + claim.getMetadata().getName() + " binding timeout");
                    }
                }
            }
            if (ready) {
                return;
            }
            cache.awaitClaimChange(version, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()) + 1);
        }
    }

    /** The scheduler's cached claim unless this binder wrote a newer one that has not reached the cache yet. */
    private ResourceClaim latest(ResourceClaim own) {
        ResourceClaim cached = cache.claim(SchedulerCache.key(own));
        return cached != null && own.getMetadata().getUid().equals(cached.getMetadata().getUid())
                && !SchedulerCache.newer(own, cached) ? cached : own;
    }

    private void postBinding(Pod pod, String node) throws BindException, InterruptedException {
        Map<String, Object> binding = new LinkedHashMap<>();
        binding.put("apiVersion", "v1");
        binding.put("kind", "Binding");
        binding.put("metadata", Map.of("name", pod.getMetadata().getName(),
                "namespace", pod.getMetadata().getNamespace(), "uid", pod.getMetadata().getUid()));
        binding.put("target", Map.of("apiVersion", "v1", "kind", "Node", "name", node));
        String url = apiBase + "/api/v1/namespaces/" + pod.getMetadata().getNamespace() + "/pods/"
                + pod.getMetadata().getName() + "/binding";
        HttpRequest request = client.getHttpClient().newHttpRequestBuilder().uri(url)
                .post("application/json", client.getKubernetesSerialization().asJson(binding)).build();
        HttpResponse<String> response;
        try {
            response = client.getHttpClient().sendAsync(request, String.class)
                    .get(REQUEST_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new BindException("running Bind plugin \"DefaultBinder\": " + e.getMessage());
        }
        if (response.code() / 100 != 2) {
            String message = response.body();
            try {
                Status status = client.getKubernetesSerialization().unmarshal(response.body(), Status.class);
                if (status != null && status.getMessage() != null) {
                    message = status.getMessage();
                }
            } catch (RuntimeException e) {
                LOG.debug("binding answer is not a Status: {}", e.getMessage());
            }
            throw new BindException("running Bind plugin \"DefaultBinder\": " + message);
        }
    }

    /** Upstream's Unreserve: drop the pod from {@code reservedFor} with a patch that needs no fresh claim. */
    private void unreserve(List<ResourceClaim> claims, Pod pod) {
        for (ResourceClaim claim : claims) {
            if (!DynamicResources.reservedFor(latest(claim), pod)) {
                continue;
            }
            String patch = String.format("{\"metadata\":{\"uid\":\"%s\"},\"status\":{\"reservedFor\":[{\"$patch\":"
                    + "\"delete\",\"uid\":\"%s\"}]}}", claim.getMetadata().getUid(), pod.getMetadata().getUid());
            try {
                client.resources(ResourceClaim.class).inNamespace(claim.getMetadata().getNamespace())
                        .withName(claim.getMetadata().getName()).subresource("status")
                        .patch(PatchContext.of(PatchType.STRATEGIC_MERGE), patch);
            } catch (KubernetesClientException e) {
                LOG.warn("unreserve claim {} for pod {}: {}", SchedulerCache.key(claim), SchedulerCache.key(pod),
                        Reporter.statusMessage(e));
            }
        }
    }

    /** PostFilter's deallocation: allocation, reservations and device status cleared in one status update. */
    ResourceClaim deallocate(ResourceClaim claim) {
        ResourceClaim cleared = new ResourceClaimBuilder(claim).withStatus(new ResourceClaimStatus()).build();
        try {
            return client.resources(ResourceClaim.class).inNamespace(claim.getMetadata().getNamespace())
                    .resource(cleared).status().update();
        } catch (KubernetesClientException e) {
            LOG.info("could not deallocate claim {}: {}", SchedulerCache.key(claim), Reporter.statusMessage(e));
            return null;
        }
    }
}
