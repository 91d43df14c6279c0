package io.kdra.cluster.controller;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodResourceClaim;
import io.fabric8.kubernetes.api.model.PodResourceClaimStatus;
import io.fabric8.kubernetes.api.model.PodResourceClaimStatusBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequest;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimConsumerReference;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimConsumerReferenceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplate;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.api.model.scheduling.v1beta1.PodGroup;
import io.fabric8.kubernetes.api.model.scheduling.v1beta1.PodGroupResourceClaim;
import io.fabric8.kubernetes.api.model.scheduling.v1beta1.PodGroupResourceClaimStatus;
import io.kdra.cluster.EventRecorder;
import io.kdra.cluster.PodGroupClaims;
import io.kdra.kube.FeatureGates;
import io.kdra.kube.client.Informers;
import io.kdra.kube.client.UnreadWrites;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * kube-controller-manager's resourceclaim controller ({@code pkg/controller/resourceclaim}): creates the claims of
 * a pod's ResourceClaimTemplates and records them in {@code status.resourceClaimStatuses}; reserves allocated claims
 * for pods bound without the scheduler; drops {@code reservedFor} entries of pods that are gone, replaced or done;
 * deallocates a claim nobody uses any more (clears {@code status.allocation}, then removes the
 * {@code resource.kubernetes.io/delete-protection} finalizer); deletes the generated claims of done pods.
 *
 * <p>With GenericWorkload and DRAWorkloadResourceClaims (KEP-5729) it also creates one claim per PodGroup for each
 * of the group's templates, owned by the PodGroup and recorded in its {@code status.resourceClaimStatuses}; a pod's
 * claim that matches one of its group's gets the group's claim in its status instead of a claim of its own; a
 * PodGroup's reservation holds while the PodGroup exists. See {@link PodGroupClaims}.
 */
public final class ResourceClaimController
        extends InformerController<ResourceClaimController, ResourceClaimController.Key> {

    /** The field manager of the pod status writes, as upstream. */
    static final String FIELD_MANAGER = "ResourceClaimController";
    /** The event source, as upstream. */
    static final String COMPONENT = "resource_claim";

    private static final Logger LOG = LoggerFactory.getLogger(ResourceClaimController.class);
    private static final String POD_CLAIMS_INDEX = "resourceclaim-controller/pod-claims";
    private static final String CLAIM_OWNER_INDEX = "resourceclaim-controller/claim-owner";
    private static final String POD_GROUP_INDEX = "resourceclaim-controller/pod-group";
    private static final int MAX_GENERATE_NAME_BASE = 57;
    private static final int DELETED_PODS_REMEMBERED = 500;

    sealed interface Key permits PodKey, ClaimKey, PodGroupKey {}

    record PodKey(String namespace, String name) implements Key {}

    record PodGroupKey(String namespace, String name) implements Key {}

    record ClaimKey(String namespace, String name) implements Key {}

    private final boolean adminAccessEnabled;
    private final SharedIndexInformer<Pod> pods;
    private final SharedIndexInformer<ResourceClaim> claims;
    private final SharedIndexInformer<ResourceClaimTemplate> templates;
    /** Null unless PodGroup claims are enabled (GenericWorkload and DRAWorkloadResourceClaims). */
    private final SharedIndexInformer<PodGroup> podGroups;
    private final EventRecorder events;
    /** Pods known to be deleted: a reservation for one of them can go without asking the API server. */
    private final Set<String> deletedPods = java.util.Collections.newSetFromMap(java.util.Collections.synchronizedMap(
            new java.util.LinkedHashMap<>(16, 0.75f, false) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
                    return size() > DELETED_PODS_REMEMBERED;
                }
            }));
    /**
     * Claims this controller created that the informer has not shown yet, by owning pod uid: what upstream's
     * mutation cache is for, so that a retry before the informer catches up does not create a second claim.
     */
    private final Map<String, List<ResourceClaim>> created = new ConcurrentHashMap<>();

    /** A controller with informers of its own. */
    public ResourceClaimController(KubernetesClient client, FeatureGates gates) {
        this(new SharedInformers(client), true, gates, 1);
    }

    /** A controller on shared informers, started and closed by their owner. */
    public ResourceClaimController(SharedInformers informers, FeatureGates gates, int workers) {
        this(informers, false, gates, workers);
    }

    private ResourceClaimController(SharedInformers informers, boolean ownsInformers, FeatureGates gates,
            int workers) {
        super(informers, ownsInformers, "resourceclaim-controller", workers);
        this.adminAccessEnabled = gates.enabled(FeatureGates.DRA_ADMIN_ACCESS);
        this.events = EventRecorder.ownThread(client, COMPONENT);
        this.pods = informers.informer(Pod.class);
        this.claims = informers.informer(ResourceClaim.class);
        this.templates = informers.informer(ResourceClaimTemplate.class);
        this.podGroups = gates.enabled(FeatureGates.GENERIC_WORKLOAD)
                && gates.enabled(FeatureGates.DRA_WORKLOAD_RESOURCE_CLAIMS)
                ? informers.informer(PodGroup.class) : null;
        pods.addIndexers(Map.of(POD_CLAIMS_INDEX, ResourceClaimController::claimKeysOf,
                POD_GROUP_INDEX, pod -> {
                    String group = PodGroupClaims.podGroupName(pod);
                    return group == null ? List.of() : List.of(pod.getMetadata().getNamespace() + "/" + group);
                }));
        claims.addIndexers(Map.of(CLAIM_OWNER_INDEX, claim -> {
            String owner = PodClaims.controllerUid(claim.getMetadata().getOwnerReferences());
            return owner == null ? List.of() : List.of(owner);
        }));
        if (podGroups != null) {
            podGroups.addEventHandler(Informers.handler(group -> enqueuePodGroup(group, false),
                    group -> enqueuePodGroup(group, true)));
        }
        pods.addEventHandler(Informers.handler(pod -> enqueuePod(pod, false), pod -> enqueuePod(pod, true)));
        claims.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(ResourceClaim claim) {
                forgetCreated(claim);
                enqueueClaim(claim, false);
            }

            @Override
            public void onUpdate(ResourceClaim oldClaim, ResourceClaim newClaim) {
                enqueueClaim(newClaim, false);
            }

            @Override
            public void onDelete(ResourceClaim claim, boolean finalStateUnknown) {
                enqueueClaim(claim, true);
            }
        });
    }

    @Override
    public void close() {
        super.close();
        events.close();
    }

    private static List<String> claimKeysOf(Pod pod) {
        List<String> keys = new ArrayList<>();
        for (PodResourceClaim podClaim : PodClaims.podClaims(pod)) {
            PodClaims.ClaimName name = PodClaims.claimName(pod, podClaim);
            if (name.named()) {
                keys.add(pod.getMetadata().getNamespace() + "/" + name.name());
            }
        }
        return keys;
    }

    private void enqueuePod(Pod pod, boolean deleted) {
        String extendedClaim = pod.getStatus() == null || pod.getStatus().getExtendedResourceClaimStatus() == null
                ? null : pod.getStatus().getExtendedResourceClaimStatus().getResourceClaimName();
        if (extendedClaim != null && (deleted || PodClaims.isDone(pod))) {
            // the scheduler's claim for extended resources: released and deleted with the pod's end, like generated ones
            queue.add(new ClaimKey(pod.getMetadata().getNamespace(), extendedClaim));
        }
        if (PodClaims.podClaims(pod).isEmpty()) {
            return;
        }
        if (deleted) {
            deletedPods.add(pod.getMetadata().getUid());
            created.remove(pod.getMetadata().getUid());
        }
        boolean needsClaims = !deleted && !PodClaims.isTerminal(pod)
                && !(PodClaims.deleted(pod) && !PodClaims.scheduled(pod));
        if (!needsClaims) {
            // the reservations of a pod that is gone or will not run are released through its claims
            for (PodResourceClaim podClaim : PodClaims.podClaims(pod)) {
                PodClaims.ClaimName name = PodClaims.claimName(pod, podClaim);
                if (name.named()) {
                    queue.add(new ClaimKey(pod.getMetadata().getNamespace(), name.name()));
                }
            }
        }
        if (podNeedsWork(pod)) {
            queue.add(new PodKey(pod.getMetadata().getNamespace(), pod.getMetadata().getName()));
        }
    }

    private boolean podNeedsWork(Pod pod) {
        if (PodClaims.deleted(pod) || waitsForGroup(pod)) {
            return false;
        }
        for (PodResourceClaim podClaim : PodClaims.podClaims(pod)) {
            PodClaims.ClaimName name = PodClaims.claimName(pod, podClaim);
            switch (name.state()) {
                case NOT_CREATED, UNSUPPORTED -> {
                    return true;
                }
                case NOT_NEEDED -> {
                    return false;
                }
                case NAMED -> {
                    ResourceClaim claim = claimFromCache(pod.getMetadata().getNamespace(), name.name());
                    if (claim == null) {
                        if (podClaim.getResourceClaimTemplateName() != null) {
                            return true;
                        }
                        return false;
                    }
                    if (name.checkOwner() && !isForPodOrGroup(pod, claim)) {
                        return false;
                    }
                    if (PodClaims.scheduled(pod) && PodClaims.allocated(claim) && !isReservedForPodOrGroup(pod, claim)
                            && PodClaims.canBeReserved(claim)) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    private void enqueuePodGroup(PodGroup group, boolean deleted) {
        String namespace = group.getMetadata().getNamespace();
        if (deleted) {
            created.remove(group.getMetadata().getUid());
            // its reservations end with it
            for (ResourceClaim claim : claims.getStore().list()) {
                if (PodGroupClaims.isReservedFor(claim, group)) {
                    queue.add(new ClaimKey(namespace, claim.getMetadata().getName()));
                }
            }
            return;
        }
        queue.add(new PodGroupKey(namespace, group.getMetadata().getName()));
        // its pods wait for it, or for the names of its generated claims
        for (Pod pod : pods.getIndexer().byIndex(POD_GROUP_INDEX, namespace + "/" + group.getMetadata().getName())) {
            enqueuePod(pod, false);
        }
    }

    private void enqueueClaim(ResourceClaim claim, boolean deleted) {
        String namespace = claim.getMetadata().getNamespace();
        if (!deleted) {
            // at start every claim is checked for stale reservations; an update may add a pod that is gone already
            queue.add(new ClaimKey(namespace, claim.getMetadata().getName()));
        }
        for (Pod pod : pods.getIndexer().byIndex(POD_CLAIMS_INDEX, namespace + "/" + claim.getMetadata().getName())) {
            enqueuePod(pod, false);
        }
    }

    @Override
    Duration sync(Key key) {
        if (key instanceof PodKey pod) {
            syncPod(pod.namespace(), pod.name());
        } else if (key instanceof ClaimKey claim) {
            syncClaim(claim.namespace(), claim.name());
        } else if (key instanceof PodGroupKey group) {
            syncPodGroup(group.namespace(), group.name());
        }
        return null;
    }

    /**
     * The PodGroup of a pod that names one, from the cache; null when the pod is in no group, when PodGroup claims
     * are disabled, or (then {@link #waitsForGroup}) while the group is not known yet.
     */
    private PodGroup podGroupOf(Pod pod) {
        String name = PodGroupClaims.podGroupName(pod);
        return podGroups == null || name == null ? null
                : podGroups.getStore().getByKey(pod.getMetadata().getNamespace() + "/" + name);
    }

    /** A pod of a group that is not in the cache yet: which of its claims are the group's cannot be told. */
    private boolean waitsForGroup(Pod pod) {
        return podGroups != null && PodGroupClaims.podGroupName(pod) != null && podGroupOf(pod) == null;
    }

    /** Whether the pod may use the claim: generated for it, or for its group. */
    private boolean isForPodOrGroup(Pod pod, ResourceClaim claim) {
        return PodClaims.isForPod(pod, claim) || podGroups != null && PodGroupClaims.isForGroupOf(claim, pod);
    }

    private boolean isReservedForPodOrGroup(Pod pod, ResourceClaim claim) {
        return PodClaims.isReservedForPod(pod, claim)
                || podGroups != null && PodGroupClaims.isReservedForGroupOf(claim, pod);
    }

    /** Creates the claims of the group's templates and records them in its status. */
    private void syncPodGroup(String namespace, String name) {
        PodGroup group = podGroups.getStore().getByKey(namespace + "/" + name);
        if (group == null || group.getMetadata().getDeletionTimestamp() != null || group.getSpec() == null
                || group.getSpec().getResourceClaims() == null) {
            return;
        }
        OwnerReference owner = new OwnerReferenceBuilder().withApiVersion(PodGroupClaims.API_VERSION)
                .withKind(PodGroupClaims.KIND).withName(name).withUid(group.getMetadata().getUid())
                .withController(true).withBlockOwnerDeletion(true).build();
        Map<String, String> newClaims = new LinkedHashMap<>();
        for (PodGroupResourceClaim groupClaim : group.getSpec().getResourceClaims()) {
            String templateName = groupClaim.getResourceClaimTemplateName();
            if (templateName == null) {
                continue;
            }
            String recorded = PodGroupClaims.claimName(group, groupClaim);
            if (recorded != null) {
                ResourceClaim existing = claimFromCache(namespace, recorded);
                if (existing != null && PodGroupClaims.isForGroup(existing, group)) {
                    continue;
                }
            }
            ResourceClaim claim = findGeneratedClaim(owner.getUid(), namespace, groupClaim.getName());
            if (claim == null) {
                try {
                    claim = createClaim(namespace, owner, groupClaim.getName(), templateName);
                } catch (RuntimeException e) {
                    events.record(groupReference(group), EventRecorder.WARNING, "FailedResourceClaimCreation",
                            "PodGroupResourceClaim " + groupClaim.getName() + ": " + message(e));
                    throw new IllegalStateException("PodGroup " + namespace + "/" + name + ", PodGroupResourceClaim "
                            + groupClaim.getName() + ": " + message(e), e);
                }
            }
            if (!claim.getMetadata().getName().equals(recorded)) {
                newClaims.put(groupClaim.getName(), claim.getMetadata().getName());
            }
        }
        if (!newClaims.isEmpty()) {
            writeGroupClaimStatuses(group, newClaims);
        }
    }

    private static ObjectReference groupReference(PodGroup group) {
        return new ObjectReferenceBuilder().withApiVersion(PodGroupClaims.API_VERSION)
                .withKind(PodGroupClaims.KIND).withNamespace(group.getMetadata().getNamespace())
                .withName(group.getMetadata().getName()).withUid(group.getMetadata().getUid()).build();
    }

    private void writeGroupClaimStatuses(PodGroup group, Map<String, String> newClaims) {
        Map<String, String> byName = new LinkedHashMap<>();
        if (group.getStatus() != null && group.getStatus().getResourceClaimStatuses() != null) {
            for (PodGroupResourceClaimStatus status : group.getStatus().getResourceClaimStatuses()) {
                byName.put(status.getName(), status.getResourceClaimName());
            }
        }
        byName.putAll(newClaims);
        List<Map<String, Object>> statuses = new ArrayList<>();
        byName.forEach((claimName, resourceClaimName) -> {
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("name", claimName);
            if (resourceClaimName != null) {
                entry.put("resourceClaimName", resourceClaimName);
            }
            statuses.add(entry);
        });
        String patch = client.getKubernetesSerialization().asJson(
                Map.of("status", Map.of("resourceClaimStatuses", statuses)));
        try {
            client.resources(PodGroup.class).inNamespace(group.getMetadata().getNamespace())
                    .withName(group.getMetadata().getName()).subresource("status")
                    .patch(new PatchContext.Builder().withPatchType(PatchType.JSON_MERGE)
                            .withFieldManager(FIELD_MANAGER).build(), patch);
        } catch (KubernetesClientException e) {
            throw new IllegalStateException("update PodGroup " + group.getMetadata().getNamespace() + "/"
                    + group.getMetadata().getName() + " ResourceClaimStatuses: " + message(e), e);
        }
    }

    private ResourceClaim claimFromCache(String namespace, String name) {
        return claims.getStore().getByKey(namespace + "/" + name);
    }

    private void syncPod(String namespace, String name) {
        Pod pod = pods.getStore().getByKey(namespace + "/" + name);
        if (pod == null || PodClaims.deleted(pod) || waitsForGroup(pod)) {
            return;
        }
        Map<String, String> newPodClaims = new LinkedHashMap<>();
        for (PodResourceClaim podClaim : PodClaims.podClaims(pod)) {
            try {
                handleClaim(pod, podClaim, newPodClaims);
            } catch (RuntimeException e) {
                events.record(PodClaims.reference(pod), EventRecorder.WARNING, "FailedResourceClaimCreation",
                        "PodResourceClaim " + podClaim.getName() + ": " + message(e));
                throw new IllegalStateException("pod " + namespace + "/" + name + ", PodResourceClaim "
                        + podClaim.getName() + ": " + message(e), e);
            }
        }
        if (!newPodClaims.isEmpty()) {
            writeClaimStatuses(pod, newPodClaims);
        }
        if (!PodClaims.scheduled(pod)) {
            return; // the scheduler reserves
        }
        for (PodResourceClaim podClaim : PodClaims.podClaims(pod)) {
            PodClaims.ClaimName claimName = PodClaims.claimName(pod, podClaim);
            if (!claimName.named()) {
                continue;
            }
            ResourceClaim claim = claimFromCache(namespace, claimName.name());
            if (claim == null) {
                return;
            }
            if (claimName.checkOwner() && !isForPodOrGroup(pod, claim)) {
                throw new IllegalStateException("ResourceClaim " + claimName.name() + " was not created for pod "
                        + namespace + "/" + name + " (pod is not owner)");
            }
            if (PodClaims.allocated(claim) && !isReservedForPodOrGroup(pod, claim)
                    && PodClaims.canBeReserved(claim)) {
                reserveForPod(pod, claim);
            }
        }
    }

    private void handleClaim(Pod pod, PodResourceClaim podClaim, Map<String, String> newPodClaims) {
        PodGroup group = podGroupOf(pod);
        PodGroupResourceClaim groupClaim = PodGroupClaims.matching(group, podClaim);
        if (groupClaim != null) {
            // the group's claim: generated for the group (once its sync recorded it), never for the pod
            String groupClaimName = groupClaim.getResourceClaimTemplateName() == null ? null
                    : PodGroupClaims.claimName(group, groupClaim);
            PodClaims.ClaimName recorded = PodClaims.claimName(pod, podClaim);
            if (groupClaimName != null && !(recorded.named() && groupClaimName.equals(recorded.name()))) {
                newPodClaims.put(podClaim.getName(), groupClaimName);
            }
            return;
        }
        PodClaims.ClaimName claimName = PodClaims.claimName(pod, podClaim);
        switch (claimName.state()) {
            case UNSUPPORTED -> throw new IllegalStateException(
                    "checking for claim before creating it: unsupported pod resource claim: neither "
                            + "resourceClaimName nor resourceClaimTemplateName is set");
            case NOT_NEEDED -> {
                return;
            }
            case NAMED -> {
                // recorded in the pod status; re-created only if it was deleted or is no longer the pod's
                ResourceClaim existing = claimFromCache(pod.getMetadata().getNamespace(), claimName.name());
                if (existing != null) {
                    if (!claimName.checkOwner() || PodClaims.isForPod(pod, existing)) {
                        return;
                    }
                    LOG.warn("claim {} that was created for pod {}/{} is no longer owned by the pod, creating a new "
                            + "one", claimName.name(), pod.getMetadata().getNamespace(), pod.getMetadata().getName());
                }
            }
            case NOT_CREATED -> {
                // continue below
            }
        }
        String templateName = podClaim.getResourceClaimTemplateName();
        if (templateName == null) {
            return;
        }
        String namespace = pod.getMetadata().getNamespace();
        ResourceClaim claim = findGeneratedClaim(pod.getMetadata().getUid(), namespace, podClaim.getName());
        if (claim == null) {
            claim = createClaim(namespace, new OwnerReferenceBuilder().withApiVersion("v1").withKind("Pod")
                    .withName(pod.getMetadata().getName()).withUid(pod.getMetadata().getUid())
                    .withController(true).withBlockOwnerDeletion(true).build(), podClaim.getName(), templateName);
        }
        newPodClaims.put(podClaim.getName(), claim.getMetadata().getName());
    }

    /**
     * A claim generated earlier for this entry of a pod or PodGroup (controlled by it, annotated with the entry's
     * name): covers a controller that created the claim but stopped before it recorded it in the owner's status.
     */
    private ResourceClaim findGeneratedClaim(String ownerUid, String namespace, String claimName) {
        List<ResourceClaim> candidates = new ArrayList<>(claims.getIndexer().byIndex(CLAIM_OWNER_INDEX, ownerUid));
        candidates.addAll(created.getOrDefault(ownerUid, List.of()));
        for (ResourceClaim claim : candidates) {
            Map<String, String> annotations = claim.getMetadata().getAnnotations();
            if (annotations != null && claimName.equals(annotations.get(PodClaims.POD_CLAIM_NAME_ANNOTATION))
                    && namespace.equals(claim.getMetadata().getNamespace())) {
                return claim;
            }
        }
        return null;
    }

    /**
     * Creates a claim from the template, controlled by the owner (a pod or a PodGroup) and annotated with the owner's
     * name for the claim, {@code <owner>-<claim>-<random>}.
     */
    private ResourceClaim createClaim(String namespace, OwnerReference owner, String ownersClaimName,
            String templateName) {
        ResourceClaimTemplate template = templates.getStore().getByKey(namespace + "/" + templateName);
        if (template == null) {
            throw new IllegalStateException("resource claim template \"" + templateName
                    + "\": resourceclaimtemplate.resource.k8s.io \"" + templateName + "\" not found");
        }
        if (!adminAccessEnabled && needsAdminAccess(template)) {
            throw new IllegalStateException("admin access is requested, but the feature is disabled");
        }
        var templateMeta = template.getSpec().getMetadata();
        Map<String, String> annotations = new HashMap<>();
        Map<String, String> labels = null;
        if (templateMeta != null) {
            if (templateMeta.getAnnotations() != null) {
                annotations.putAll(templateMeta.getAnnotations());
            }
            labels = templateMeta.getLabels();
        }
        annotations.put(PodClaims.POD_CLAIM_NAME_ANNOTATION, ownersClaimName);
        ResourceClaim claim = new ResourceClaimBuilder()
                .withMetadata(new ObjectMetaBuilder()
                        .withGenerateName(generateName(owner.getName(), ownersClaimName))
                        .withOwnerReferences(owner)
                        .withAnnotations(annotations).withLabels(labels).build())
                .withSpec(template.getSpec().getSpec())
                .build();
        ResourceClaim result;
        try {
            result = client.resources(ResourceClaim.class).inNamespace(namespace).resource(claim).create();
        } catch (KubernetesClientException e) {
            throw new IllegalStateException("create ResourceClaim " + claim.getMetadata().getGenerateName() + ": "
                    + message(e), e);
        }
        LOG.debug("created ResourceClaim {}/{} for {} {}", namespace, result.getMetadata().getName(), owner.getKind(),
                owner.getName());
        created.computeIfAbsent(owner.getUid(), uid -> new java.util.concurrent.CopyOnWriteArrayList<>())
                .add(result);
        return result;
    }

    private void forgetCreated(ResourceClaim claim) {
        String owner = PodClaims.controllerUid(claim.getMetadata().getOwnerReferences());
        if (owner != null) {
            created.computeIfPresent(owner, (uid, list) -> {
                list.removeIf(c -> c.getMetadata().getUid().equals(claim.getMetadata().getUid()));
                return list.isEmpty() ? null : list;
            });
        }
    }

    /**
     * {@code <owner>-<claim>-}; when longer than 57 characters both parts are cut in proportion to their length,
     * so that the claim part survives a long pod name (the API server appends 5 random characters).
     */
    static String generateName(String ownerName, String claimName) {
        String generateName = ownerName + "-" + claimName + "-";
        if (generateName.length() > MAX_GENERATE_NAME_BASE) {
            int length = generateName.length();
            generateName = ownerName.substring(0, ownerName.length() * MAX_GENERATE_NAME_BASE / length) + "-"
                    + claimName.substring(0, claimName.length() * MAX_GENERATE_NAME_BASE / length);
        }
        return generateName;
    }

    private static boolean needsAdminAccess(ResourceClaimTemplate template) {
        var devices = template.getSpec().getSpec() == null ? null : template.getSpec().getSpec().getDevices();
        if (devices == null || devices.getRequests() == null) {
            return false;
        }
        for (DeviceRequest request : devices.getRequests()) {
            if (request.getExactly() != null && Boolean.TRUE.equals(request.getExactly().getAdminAccess())) {
                return true;
            }
        }
        return false;
    }

    /** Records the generated claims in the pod status; entries already there for other pod claims stay. */
    private void writeClaimStatuses(Pod pod, Map<String, String> newPodClaims) {
        Map<String, PodResourceClaimStatus> byName = new LinkedHashMap<>();
        for (PodResourceClaimStatus status : PodClaims.claimStatuses(pod)) {
            byName.put(status.getName(), status);
        }
        newPodClaims.forEach((podClaim, claim) -> byName.put(podClaim,
                new PodResourceClaimStatusBuilder().withName(podClaim).withResourceClaimName(claim).build()));
        List<Map<String, Object>> statuses = new ArrayList<>();
        for (PodResourceClaimStatus status : byName.values()) {
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("name", status.getName());
            if (status.getResourceClaimName() != null) {
                entry.put("resourceClaimName", status.getResourceClaimName());
            }
            statuses.add(entry);
        }
        String patch = client.getKubernetesSerialization().asJson(
                Map.of("status", Map.of("resourceClaimStatuses", statuses)));
        try {
            UnreadWrites.patch(client, Pod.class, pod.getMetadata().getNamespace(), pod.getMetadata().getName(),
                    "status", PatchType.JSON_MERGE, patch, FIELD_MANAGER);
        } catch (KubernetesClientException e) {
            throw new IllegalStateException("update pod " + pod.getMetadata().getNamespace() + "/"
                    + pod.getMetadata().getName() + " ResourceClaimStatuses: " + message(e), e);
        }
    }

    private void reserveForPod(Pod pod, ResourceClaim claim) {
        ResourceClaim copy = new ResourceClaimBuilder(claim).editOrNewStatus()
                .addToReservedFor(new ResourceClaimConsumerReferenceBuilder().withResource("pods")
                        .withName(pod.getMetadata().getName()).withUid(pod.getMetadata().getUid()).build())
                .endStatus().build();
        updateStatus(copy);
    }

    private void syncClaim(String namespace, String name) {
        ResourceClaim claim = claimFromCache(namespace, name);
        if (claim == null) {
            return;
        }
        List<ResourceClaimConsumerReference> reservedFor = PodClaims.reservedFor(claim);
        List<ResourceClaimConsumerReference> valid = new ArrayList<>(reservedFor.size());
        for (ResourceClaimConsumerReference consumer : reservedFor) {
            boolean isPod = (consumer.getApiGroup() == null || consumer.getApiGroup().isEmpty())
                    && "pods".equals(consumer.getResource());
            boolean isGroup = podGroups != null && PodGroupClaims.isPodGroup(consumer);
            if (!isPod && !isGroup) {
                throw new IllegalStateException("unsupported ReservedFor entry: " + consumer);
            }
            if (isPod ? stillReserved(namespace, consumer) : groupStillExists(namespace, consumer)) {
                valid.add(consumer);
            }
        }
        boolean hasFinalizer = claim.getMetadata().getFinalizers() != null
                && claim.getMetadata().getFinalizers().contains(PodClaims.DELETE_PROTECTION_FINALIZER);
        if (valid.size() < reservedFor.size()) {
            // an update, not a patch: it must fail when anything changed meanwhile
            var status = new ResourceClaimBuilder(claim).editOrNewStatus().withReservedFor(valid);
            if (valid.isEmpty() && hasFinalizer) {
                // deallocate as soon as the last consumer is gone, so the next consumer may land anywhere
                status.withAllocation(null);
            }
            ResourceClaim updated = updateStatus(status.endStatus().build());
            if (updated.getMetadata().getFinalizers() != null
                    && updated.getMetadata().getFinalizers().contains(PodClaims.DELETE_PROTECTION_FINALIZER)
                    && !PodClaims.allocated(updated)) {
                removeFinalizer(updated);
            }
        } else if (hasFinalizer && claim.getMetadata().getDeletionTimestamp() != null && valid.isEmpty()) {
            ResourceClaim current = claim;
            if (PodClaims.allocated(current)) {
                // an unused claim that stayed allocated and is now deleted
                current = updateStatus(new ResourceClaimBuilder(current).editStatus().withAllocation(null)
                        .endStatus().build());
            }
            removeFinalizer(current);
        }
        if (valid.isEmpty()) {
            deleteIfOwnerDone(claim);
        }
    }

    /** Whether a pod reservation still holds: the pod exists with that uid and is not done. */
    private boolean stillReserved(String namespace, ResourceClaimConsumerReference consumer) {
        if (deletedPods.contains(consumer.getUid())) {
            return false;
        }
        Pod pod = pods.getStore().getByKey(namespace + "/" + consumer.getName());
        if (pod == null) {
            // maybe not in the cache yet: dropping the reservation of a pod being scheduled would be wrong
            pod = client.pods().inNamespace(namespace).withName(consumer.getName()).get();
            return pod != null && consumer.getUid().equals(pod.getMetadata().getUid());
        }
        return consumer.getUid().equals(pod.getMetadata().getUid()) && !PodClaims.isDone(pod);
    }

    /** A PodGroup's reservation holds until the PodGroup is gone, however many of its pods run. */
    private boolean groupStillExists(String namespace, ResourceClaimConsumerReference consumer) {
        PodGroup group = podGroups.getStore().getByKey(namespace + "/" + consumer.getName());
        if (group == null) {
            // maybe not in the cache yet
            group = client.resources(PodGroup.class).inNamespace(namespace).withName(consumer.getName()).get();
        }
        return group != null && consumer.getUid().equals(group.getMetadata().getUid());
    }

    private void deleteIfOwnerDone(ResourceClaim claim) {
        OwnerReference owner = PodClaims.owningPod(claim);
        if (owner == null) {
            return;
        }
        String namespace = claim.getMetadata().getNamespace();
        Pod pod = pods.getStore().getByKey(namespace + "/" + owner.getName());
        if (pod == null) {
            return; // unknown yet, or gone: then the garbage collector deletes the claim
        }
        if (!owner.getUid().equals(pod.getMetadata().getUid()) || PodClaims.isDone(pod)) {
            LOG.debug("deleting unused generated claim {}/{}", namespace, claim.getMetadata().getName());
            client.resources(ResourceClaim.class).inNamespace(namespace).withName(claim.getMetadata().getName())
                    .delete();
        }
    }

    private ResourceClaim updateStatus(ResourceClaim claim) {
        return client.resources(ResourceClaim.class).inNamespace(claim.getMetadata().getNamespace()).resource(claim)
                .updateStatus();
    }

    private void removeFinalizer(ResourceClaim claim) {
        List<String> finalizers = new ArrayList<>(claim.getMetadata().getFinalizers());
        finalizers.remove(PodClaims.DELETE_PROTECTION_FINALIZER);
        ResourceClaim copy = new ResourceClaimBuilder(claim).editMetadata().withFinalizers(finalizers).endMetadata()
                .build();
        client.resources(ResourceClaim.class).inNamespace(claim.getMetadata().getNamespace()).resource(copy).update();
    }

    private static String message(RuntimeException e) {
        if (e instanceof KubernetesClientException k && k.getStatus() != null && k.getStatus().getMessage() != null) {
            return k.getStatus().getMessage();
        }
        return e.getMessage();
    }
}
