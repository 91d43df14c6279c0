package io.kdra.apiserver.admission;

import io.kdra.apiserver.json.Json;
import io.kdra.apiserver.storage.Store;
import io.kdra.kube.FeatureGates;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.BinaryOperator;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The usage kube-apiserver's quota evaluators for pods and ResourceClaims ({@code pkg/quota/v1/evaluator/core}) compute
 * for extended resources and devices; object counts are {@link QuotaResources}'.
 *
 * <ul>
 *   <li>Pods that are not terminal: {@code requests.<name>} for each extended resource (a name with a domain outside
 *       {@code kubernetes.io}) and each implicit DRA name {@code deviceclass.resource.kubernetes.io/<class>} they
 *       request, aggregated as the scheduler does: containers and sidecars add up, other init containers count with
 *       the sidecars started before them, the larger of both wins.
 *   <li>ResourceClaims: {@code <class>.deviceclass.resource.k8s.io/devices}, the devices each request may get
 *       ({@code count} for ExactCount, 32 for All, the largest subrequest per class for firstAvailable).
 *   <li>With DRAExtendedResource, also the extended resource names of those devices:
 *       {@code requests.deviceclass.resource.kubernetes.io/<class>} and {@code requests.<extendedResourceName>} of
 *       the class. For the claim the scheduler made for a pod's extended resources (annotated, controlled by that pod,
 *       the one its status names or else its oldest such claim), what the pod itself already counts is subtracted, so
 *       the devices are counted once.
 * </ul>
 * Quantities are whole numbers; an extended resource request that is not one is not counted. CPU, memory and storage
 * requests and limits are not computed.
 */
public final class QuotaUsage {

    static final String REQUESTS_PREFIX = "requests.";
    static final String IMPLICIT_PREFIX = "deviceclass.resource.kubernetes.io/";
    static final String DEVICES_PER_CLASS_SUFFIX = ".deviceclass.resource.k8s.io/devices";
    static final String EXTENDED_RESOURCE_CLAIM_ANNOTATION = "resource.kubernetes.io/extended-resource-claim";
    /** {@code AllocationResultsMaxSize}: the worst case of an All request. */
    static final long ALLOCATION_RESULTS_MAX_SIZE = 32;

    private static final String PODS = "/pods";
    private static final String CLAIMS = "resource.k8s.io/resourceclaims";
    private static final String CLASSES = "resource.k8s.io/deviceclasses";
    private static final BinaryOperator<Long> MAX = Math::max;

    private final Store store;
    private final FeatureGates gates;

    public QuotaUsage(Store store, FeatureGates gates) {
        this.store = store;
        this.gates = gates;
    }

    /** @return whether the evaluators compute this quota resource */
    public boolean computes(String quotaResource) {
        if (quotaResource.endsWith(DEVICES_PER_CLASS_SUFFIX)) {
            return true;
        }
        return quotaResource.startsWith(REQUESTS_PREFIX)
                && (isExtendedResource(quotaResource.substring(REQUESTS_PREFIX.length()))
                        || quotaResource.startsWith(REQUESTS_PREFIX + IMPLICIT_PREFIX));
    }

    /** @return the namespace's usage of each given quota resource that the evaluators compute, 0 when unused */
    public Map<String, Long> usage(String namespace, Set<String> quotaResources) {
        Map<String, Long> total = new HashMap<>();
        Map<String, ObjectNode> pods = new HashMap<>();
        for (ObjectNode pod : store.list(PODS, namespace).items()) {
            pods.put(Json.text(pod, "metadata", "name"), pod);
            podUsage(pod).forEach((name, quantity) -> total.merge(name, quantity, Long::sum));
        }
        List<ObjectNode> claims = store.list(CLAIMS, namespace).items();
        Map<String, String> extendedResourceNames = gates.enabled(FeatureGates.DRA_EXTENDED_RESOURCE)
                ? extendedResourceNames() : null;
        for (ObjectNode claim : claims) {
            Map<String, Long> usage = claimUsage(claim);
            if (extendedResourceNames != null) {
                addExtendedResources(usage, extendedResourceNames, verifiedPodUsage(claim, claims, pods));
            }
            usage.forEach((name, quantity) -> total.merge(name, quantity, Long::sum));
        }
        Map<String, Long> result = new LinkedHashMap<>();
        for (String resource : quotaResources) {
            if (computes(resource)) {
                result.put(resource, total.getOrDefault(resource, 0L));
            }
        }
        return result;
    }

    /** {@code PodUsageFunc}, its extended resource part. */
    static Map<String, Long> podUsage(JsonNode pod) {
        String phase = Json.text(pod, "status", "phase");
        if ("Succeeded".equals(phase) || "Failed".equals(phase)) {
            return Map.of();
        }
        Map<String, Long> usage = new HashMap<>();
        podRequests(Json.at(pod, "spec")).forEach((name, quantity) -> {
            if (isExtendedResource(name) || name.startsWith(IMPLICIT_PREFIX)) {
                usage.put(REQUESTS_PREFIX + name, quantity);
            }
        });
        return usage;
    }

    /**
     * {@code AggregateContainerRequests}: regular containers and sidecars (restartable init containers) add up; a
     * regular init container needs its requests plus those of the sidecars started before it; the pod needs the
     * larger of both.
     */
    static Map<String, Long> podRequests(JsonNode spec) {
        Map<String, Long> requests = new HashMap<>();
        for (JsonNode container : Json.at(spec, "containers")) {
            requests(container).forEach((name, quantity) -> requests.merge(name, quantity, Long::sum));
        }
        Map<String, Long> sidecars = new HashMap<>();
        Map<String, Long> initPeak = new HashMap<>();
        for (JsonNode container : Json.at(spec, "initContainers")) {
            Map<String, Long> own = requests(container);
            if ("Always".equals(Json.text(container, "restartPolicy"))) {
                own.forEach((name, quantity) -> requests.merge(name, quantity, Long::sum));
                own.forEach((name, quantity) -> sidecars.merge(name, quantity, Long::sum));
                sidecars.forEach((name, quantity) -> initPeak.merge(name, quantity, MAX));
            } else {
                Map<String, Long> during = new HashMap<>(sidecars);
                own.forEach((name, quantity) -> during.merge(name, quantity, Long::sum));
                during.forEach((name, quantity) -> initPeak.merge(name, quantity, MAX));
            }
        }
        initPeak.forEach((name, quantity) -> requests.merge(name, quantity, MAX));
        return requests;
    }

    private static Map<String, Long> requests(JsonNode container) {
        Map<String, Long> requests = new HashMap<>();
        for (Map.Entry<String, JsonNode> entry : Json.at(container, "resources", "requests").properties()) {
            Long count = QuotaResources.parseCount(entry.getValue().asString());
            if (count != null) {
                requests.put(entry.getKey(), count);
            }
        }
        return requests;
    }

    /** {@code IsExtendedResourceName}: a domain-prefixed name outside {@code kubernetes.io}, not a quota name. */
    static boolean isExtendedResource(String name) {
        return name.contains("/") && !name.contains("kubernetes.io/") && !name.startsWith(REQUESTS_PREFIX);
    }

    /** The claim evaluator's device counts per class. */
    static Map<String, Long> claimUsage(JsonNode claim) {
        Map<String, Long> usage = new HashMap<>();
        for (JsonNode request : Json.at(claim, "spec", "devices", "requests")) {
            JsonNode subrequests = Json.at(request, "firstAvailable");
            if (subrequests.isArray() && !subrequests.isEmpty()) {
                Map<String, Long> worstCase = new HashMap<>();
                for (JsonNode subrequest : subrequests) {
                    worstCase.merge(devicesOfClass(subrequest), devices(subrequest), MAX);
                }
                worstCase.forEach((name, quantity) -> usage.merge(name, quantity, Long::sum));
            } else if (Json.at(request, "exactly").isObject()) {
                JsonNode exactly = Json.at(request, "exactly");
                usage.merge(devicesOfClass(exactly), devices(exactly), Long::sum);
            }
        }
        return usage;
    }

    private static String devicesOfClass(JsonNode request) {
        return Json.text(request, "deviceClassName") + DEVICES_PER_CLASS_SUFFIX;
    }

    private static long devices(JsonNode request) {
        String mode = Json.text(request, "allocationMode");
        if (mode == null || mode.equals("ExactCount")) {
            JsonNode count = Json.at(request, "count");
            return count.isNumber() ? count.asLong() : 1;
        }
        // an unknown mode (after a downgrade) counts nothing, as upstream
        return mode.equals("All") ? ALLOCATION_RESULTS_MAX_SIZE : 0;
    }

    /** {@code addExtendedResourceQuota}: the claim's devices under their extended resource names. */
    static void addExtendedResources(Map<String, Long> claimUsage, Map<String, String> extendedResourceNames,
            Map<String, Long> podUsage) {
        Map<String, Long> extended = new HashMap<>();
        claimUsage.forEach((name, quantity) -> {
            if (!name.endsWith(DEVICES_PER_CLASS_SUFFIX) || name.length() == DEVICES_PER_CLASS_SUFFIX.length()) {
                return;
            }
            String className = name.substring(0, name.length() - DEVICES_PER_CLASS_SUFFIX.length());
            extended.put(REQUESTS_PREFIX + IMPLICIT_PREFIX + className, quantity);
            String extendedResource = extendedResourceNames.get(className);
            if (extendedResource != null) {
                extended.put(REQUESTS_PREFIX + extendedResource, quantity);
            }
        });
        extended.forEach((name, quantity) -> {
            long remaining = quantity - podUsage.getOrDefault(name, 0L);
            if (remaining > 0) {
                claimUsage.put(name, remaining);
            }
        });
    }

    /**
     * {@code getVerifiedPodUsage}: for the claim the scheduler made for a pod's extended resources, the pod's usage;
     * empty for any other claim.
     */
    static Map<String, Long> verifiedPodUsage(JsonNode claim, List<ObjectNode> claims, Map<String, ObjectNode> pods) {
        JsonNode owner = extendedResourceClaimOwner(claim);
        if (owner == null) {
            return Map.of();
        }
        ObjectNode pod = pods.get(Json.text(owner, "name"));
        if (pod == null || !Objects.equals(Json.text(owner, "uid"), Json.text(pod, "metadata", "uid"))) {
            return Map.of();
        }
        String claimName = Json.text(claim, "metadata", "name");
        String named = Json.text(pod, "status", "extendedResourceClaimStatus", "resourceClaimName");
        if (named != null && !named.equals(claimName)) {
            return Map.of();
        }
        if (named == null) {
            // without the pod naming it, only its first such claim may be exempted
            Comparator<JsonNode> order = Comparator
                    .comparing((JsonNode c) -> Objects.requireNonNullElse(
                            Json.text(c, "metadata", "creationTimestamp"), ""))
                    .thenComparing(c -> Json.text(c, "metadata", "name"));
            JsonNode first = claims.stream()
                    .<JsonNode>map(other -> other)
                    .filter(other -> {
                        JsonNode otherOwner = extendedResourceClaimOwner(other);
                        return otherOwner != null && Objects.equals(Json.text(otherOwner, "uid"),
                                Json.text(owner, "uid"));
                    })
                    .min(order).orElse(claim);
            if (!claimName.equals(Json.text(first, "metadata", "name"))) {
                return Map.of();
            }
        }
        return podUsage(pod);
    }

    /** The controlling v1 Pod of an annotated extended resource claim, or null. */
    private static JsonNode extendedResourceClaimOwner(JsonNode claim) {
        if (!"true".equals(Json.text(claim, "metadata", "annotations", EXTENDED_RESOURCE_CLAIM_ANNOTATION))) {
            return null;
        }
        for (JsonNode owner : Json.at(claim, "metadata", "ownerReferences")) {
            if (Json.at(owner, "controller").asBoolean(false)) {
                return "Pod".equals(Json.text(owner, "kind")) && "v1".equals(Json.text(owner, "apiVersion"))
                        ? owner : null;
            }
        }
        return null;
    }

    /** Each DeviceClass's {@code spec.extendedResourceName}. */
    private Map<String, String> extendedResourceNames() {
        Map<String, String> names = new HashMap<>();
        for (ObjectNode deviceClass : store.list(CLASSES, null).items()) {
            String name = Json.text(deviceClass, "spec", "extendedResourceName");
            if (name != null) {
                names.put(Json.text(deviceClass, "metadata", "name"), name);
            }
        }
        return names;
    }
}
