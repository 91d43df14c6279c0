package io.kdra.cluster.scheduler;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerExtendedResourceRequest;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequest;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;

/**
 * Extended resources backed by DRA (KEP-5004, gate {@code DRAExtendedResource}), the scheduler's part. A container may
 * request an extended resource that a DeviceClass names in {@code spec.extendedResourceName} (explicit) or
 * {@code deviceclass.resource.kubernetes.io/<class>} (implicit, every class has one). On a node whose allocatable has
 * none of it (no device plugin serves it there), the scheduler allocates devices of that class through one special
 * ResourceClaim per pod: in memory during the cycle, created in PreBind as {@code <pod>-extended-resources-<random>}
 * with the annotation {@value #ANNOTATION} and the pod as controller, and recorded in
 * {@code pod.status.extendedResourceClaimStatus} with one request mapping per container and resource.
 *
 * <p>Device requests are named {@code container-<i>-request-<j>} (i: index in init containers followed by containers;
 * j: index of the resource among the container's sorted request names). Sidecars and regular containers get devices of
 * their own; a regular init container reuses the devices of the sidecars and containers after it and only asks for
 * what they do not cover, and all init containers share the largest such request, as upstream does.
 *
 * <p>It also holds the resource fit for extended resources (NodeResourcesFit's part that matters here): a non-zero
 * request for an extended resource that neither the node's allocatable nor (with the gate) a DeviceClass provides
 * makes the node unfit. Device-plugin resources in allocatable are not counted against other pods' use.
 */
final class ExtendedResources {

    static final String ANNOTATION = "resource.kubernetes.io/extended-resource-claim";
    static final String IMPLICIT_PREFIX = "deviceclass.resource.kubernetes.io/";
    /** Not a valid object name, so it never clashes with a stored claim. */
    static final String IN_MEMORY_NAME = "<extended-resources>";
    /** Why no node fits while a special claim of an earlier attempt still exists. */
    static final String STALE_CLAIM = "cannot schedule extended resource claim";

    private final boolean enabled;
    private final SchedulerCache cache;

    ExtendedResources(boolean enabled, SchedulerCache cache) {
        this.enabled = enabled;
        this.cache = cache;
    }

    boolean enabled() {
        return enabled;
    }

    /** What PreFilter learned about the pod's extended resources; used by Filter and Reserve of the same cycle. */
    record PodState(Map<String, Long> requests, Map<String, String> classes, ResourceClaim claim) {
        boolean fromEarlierCycle() {
            return !IN_MEMORY_NAME.equals(claim.getMetadata().getName());
        }
    }

    /** The special claim of one node with the pod's request mappings. */
    record NodeClaim(ResourceClaim claim, List<ContainerExtendedResourceRequest> mappings) {}

    /**
     * Upstream's name check: an extended resource (domain-prefixed, outside kubernetes.io) or an implicit DeviceClass
     * name.
     */
    static boolean isDraExtendedResourceName(String name) {
        if (name.startsWith(IMPLICIT_PREFIX)) {
            return true;
        }
        return name.contains("/") && !name.contains("kubernetes.io/") && !name.startsWith("requests.");
    }

    /** Extended resource name → DeviceClass: every class's implicit name, and its explicit one. */
    Map<String, String> classMapping() {
        Map<String, String> mapping = new HashMap<>();
        List<DeviceClass> classes = new ArrayList<>(cache.classes().values());
        classes.sort(Comparator.comparing((DeviceClass c) -> Objects.toString(c.getMetadata()
                .getCreationTimestamp(), "")).thenComparing(c -> c.getMetadata().getName()));
        for (DeviceClass deviceClass : classes) {
            String name = deviceClass.getMetadata().getName();
            mapping.put(IMPLICIT_PREFIX + name, name);
            String explicit = deviceClass.getSpec() == null ? null : deviceClass.getSpec().getExtendedResourceName();
            if (explicit != null && !explicit.isEmpty()) {
                mapping.put(explicit, name);
            }
        }
        return mapping;
    }

    /**
     * The pod's effective non-zero requests of extended resources ({@code resourcehelper.PodRequests}: the sum of the
     * containers and sidecars, or the largest init container with the sidecars started before it, whichever is more).
     */
    static Map<String, Long> podRequests(Pod pod) {
        Map<String, Long> total = new TreeMap<>();
        for (Container container : Lists.orEmpty(pod.getSpec().getContainers())) {
            requests(container).forEach((name, value) -> total.merge(name, value, Long::sum));
        }
        Map<String, Long> sidecars = new TreeMap<>();
        Map<String, Long> initMax = new TreeMap<>();
        for (Container container : Lists.orEmpty(pod.getSpec().getInitContainers())) {
            Map<String, Long> own = requests(container);
            if (isSidecar(container)) {
                own.forEach((name, value) -> {
                    total.merge(name, value, Long::sum);
                    sidecars.merge(name, value, Long::sum);
                });
                sidecars.forEach((name, value) -> initMax.merge(name, value, Math::max));
            } else {
                Map<String, Long> during = new TreeMap<>(sidecars);
                own.forEach((name, value) -> during.merge(name, value, Long::sum));
                during.forEach((name, value) -> initMax.merge(name, value, Math::max));
            }
        }
        initMax.forEach((name, value) -> total.merge(name, value, Math::max));
        total.values().removeIf(value -> value == 0);
        return total;
    }

    /** PreFilter: null when the gate is off or no requested resource maps to a DeviceClass. */
    PodState preFilter(Pod pod) {
        if (!enabled) {
            return null;
        }
        Map<String, Long> requests = podRequests(pod);
        Map<String, String> classes = classMapping();
        if (requests.keySet().stream().noneMatch(classes::containsKey)) {
            return null;
        }
        ResourceClaim existing = findClaim(pod);
        if (existing != null) {
            return new PodState(requests, classes, existing);
        }
        OwnerReference owner = new OwnerReferenceBuilder().withApiVersion("v1").withKind("Pod")
                .withName(pod.getMetadata().getName()).withUid(pod.getMetadata().getUid()).withController(true)
                .build();
        ResourceClaim inMemory = new ResourceClaimBuilder().withNewMetadata()
                .withNamespace(pod.getMetadata().getNamespace()).withName(IN_MEMORY_NAME)
                .withUid(UUID.randomUUID().toString())
                .withGenerateName(pod.getMetadata().getName() + "-extended-resources-")
                .withOwnerReferences(owner).addToAnnotations(ANNOTATION, "true").endMetadata()
                .withNewSpec().withNewDevices().endDevices().endSpec().build();
        return new PodState(requests, classes, inMemory);
    }

    /** The special claim of an earlier cycle (annotated, controlled by the pod), or null. */
    ResourceClaim findClaim(Pod pod) {
        for (ResourceClaim claim : cache.claimsIn(pod.getMetadata().getNamespace())) {
            Map<String, String> annotations = claim.getMetadata().getAnnotations();
            if (annotations == null || !"true".equals(annotations.get(ANNOTATION))) {
                continue;
            }
            for (OwnerReference owner : Lists.orEmpty(claim.getMetadata().getOwnerReferences())) {
                if (Boolean.TRUE.equals(owner.getController()) && pod.getMetadata().getUid().equals(owner.getUid())
                        && pod.getMetadata().getName().equals(owner.getName())) {
                    return claim;
                }
            }
        }
        return null;
    }

    /**
     * NodeResourcesFit for extended resources.
     *
     * @return {@code Insufficient <resource>} for the first requested resource the node cannot provide, or null
     */
    String insufficient(Pod pod, NodeInfo node) {
        Map<String, String> classes = enabled ? classMapping() : Map.of();
        for (Map.Entry<String, Long> request : podRequests(pod).entrySet()) {
            String name = request.getKey();
            if (!isDraExtendedResourceName(name) || classes.containsKey(name)) {
                continue;
            }
            if (allocatable(node, name) < request.getValue()) {
                return "Insufficient " + name;
            }
        }
        return null;
    }

    /**
     * Filter: the node's variant of the special claim, with the requests of the resources that no device plugin serves
     * there; null when the node needs none.
     */
    NodeClaim nodeClaim(PodState state, Pod pod, NodeInfo node) {
        Set<String> viaDra = new LinkedHashSet<>();
        for (String name : state.requests().keySet()) {
            if (state.classes().containsKey(name) && allocatable(node, name) == 0) {
                viaDra.add(name);
            }
        }
        if (viaDra.isEmpty()) {
            return null;
        }
        List<DeviceRequest> requests = new ArrayList<>();
        List<ContainerExtendedResourceRequest> mappings = new ArrayList<>();
        requestsAndMappings(pod, viaDra, state.classes(), requests, mappings);
        ResourceClaim claim = new ResourceClaimBuilder(state.claim()).editSpec().editDevices()
                .withRequests(requests).endDevices().endSpec().build();
        return new NodeClaim(claim, mappings);
    }

    private static void requestsAndMappings(Pod pod, Set<String> resources, Map<String, String> classes,
            List<DeviceRequest> requests, List<ContainerExtendedResourceRequest> mappings) {
        List<Container> containers = new ArrayList<>(Lists.orEmpty(pod.getSpec().getInitContainers()));
        int initCount = containers.size();
        containers.addAll(Lists.orEmpty(pod.getSpec().getContainers()));
        for (String resource : resources) {
            String className = classes.get(resource);
            DeviceRequest[] longLived = new DeviceRequest[containers.size()];
            List<ContainerExtendedResourceRequest> longLivedMappings = new ArrayList<>();
            for (int i = 0; i < containers.size(); i++) {
                if (i >= initCount || isSidecar(containers.get(i))) {
                    longLived[i] = request(i, containers.get(i), resource, className, List.of(), longLivedMappings);
                }
            }
            DeviceRequest largestShortLived = null;
            Set<String> shortLivedNames = new LinkedHashSet<>();
            List<ContainerExtendedResourceRequest> shortLivedMappings = new ArrayList<>();
            for (int i = 0; i < initCount; i++) {
                if (isSidecar(containers.get(i))) {
                    continue;
                }
                List<DeviceRequest> reusable = new ArrayList<>();
                for (int later = i; later < containers.size(); later++) {
                    if (longLived[later] != null) {
                        reusable.add(longLived[later]);
                    }
                }
                DeviceRequest own = request(i, containers.get(i), resource, className, reusable, shortLivedMappings);
                if (own != null) {
                    shortLivedNames.add(own.getName());
                    if (largestShortLived == null
                            || largestShortLived.getExactly().getCount() < own.getExactly().getCount()) {
                        largestShortLived = own;
                    }
                }
            }
            if (largestShortLived != null) {
                // init containers run one after the other: the largest request serves all of them
                String largest = largestShortLived.getName();
                shortLivedNames.remove(largest);
                for (ContainerExtendedResourceRequest mapping : shortLivedMappings) {
                    if (shortLivedNames.contains(mapping.getRequestName())) {
                        mapping.setRequestName(largest);
                    }
                }
                requests.add(largestShortLived);
            }
            for (DeviceRequest request : longLived) {
                if (request != null) {
                    requests.add(request);
                }
            }
            mappings.addAll(longLivedMappings);
            mappings.addAll(shortLivedMappings);
        }
        requests.sort(Comparator.comparing(DeviceRequest::getName));
        mappings.sort(Comparator.comparing(ContainerExtendedResourceRequest::getContainerName,
                Comparator.comparingInt(name -> containerIndex(containers, name)))
                .thenComparing(ContainerExtendedResourceRequest::getRequestName));
    }

    /**
     * The container's own request for the resource after the reusable ones (null when they cover it), adding the
     * container's mappings.
     */
    private static DeviceRequest request(int index, Container container, String resource, String className,
            List<DeviceRequest> reusable, List<ContainerExtendedResourceRequest> mappings) {
        long wanted = requests(container).getOrDefault(resource, 0L);
        if (wanted == 0) {
            return null;
        }
        long covered = 0;
        for (DeviceRequest request : reusable) {
            covered += request.getExactly().getCount();
            mappings.add(new ContainerExtendedResourceRequest(container.getName(), request.getName(), resource));
            if (covered >= wanted) {
                return null;
            }
        }
        List<String> names = new ArrayList<>(container.getResources().getRequests().keySet());
        names.sort(null);
        String name = "container-" + index + "-request-" + names.indexOf(resource);
        mappings.add(new ContainerExtendedResourceRequest(container.getName(), name, resource));
        return new DeviceRequestBuilder().withName(name).withNewExactly().withDeviceClassName(className)
                .withAllocationMode("ExactCount").withCount(wanted - covered).endExactly().build();
    }

    private static int containerIndex(List<Container> containers, String name) {
        for (int i = 0; i < containers.size(); i++) {
            if (containers.get(i).getName().equals(name)) {
                return i;
            }
        }
        return containers.size();
    }

    private static boolean isSidecar(Container container) {
        return "Always".equals(container.getRestartPolicy());
    }

    /** A container's integer requests of DRA-eligible extended resources (others cannot be backed by DRA). */
    private static Map<String, Long> requests(Container container) {
        Map<String, Long> requests = new TreeMap<>();
        if (container.getResources() == null || container.getResources().getRequests() == null) {
            return requests;
        }
        for (Map.Entry<String, Quantity> entry : container.getResources().getRequests().entrySet()) {
            if (!isDraExtendedResourceName(entry.getKey())) {
                continue;
            }
            OptionalLong value = io.kdra.kube.Quantity.fromFabric8(entry.getValue()).asLong();
            if (value.isPresent()) {
                requests.put(entry.getKey(), value.getAsLong());
            }
        }
        return requests;
    }

    private static long allocatable(NodeInfo node, String resource) {
        if (node.node().getStatus() == null || node.node().getStatus().getAllocatable() == null) {
            return 0;
        }
        Quantity quantity = node.node().getStatus().getAllocatable().get(resource);
        return quantity == null ? 0 : io.kdra.kube.Quantity.fromFabric8(quantity).asLong().orElse(0);
    }
}
