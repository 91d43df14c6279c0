package io.kdra.kube;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A pod's quality-of-service class as upstream's {@code ComputePodQOS} (pkg/apis/core/helper/qos) computes it, for the
 * API server's {@code status.qosClass} and resize check and for the kubelet's cgroups alike.
 *
 * <p>Pod-level resources ({@code spec.resources}) decide instead of the containers: before 1.37 whenever the pod has
 * them, even empty (so {@code spec.resources: {}} makes any pod BestEffort); with PodLevelResourcesFixKubeletQOSClass
 * (on from 1.37) only when they name cpu, memory or a hugepages size ({@code IsPodLevelResourcesSet}). Either way only
 * positive cpu and memory amounts count. No such request or limit is {@code BestEffort}; cpu and memory limits on the
 * pod level (or on every container and init container), with requests equal to limits in sum, is {@code Guaranteed};
 * anything else {@code Burstable}.
 */
public final class PodQosClass {

    public static final String GUARANTEED = "Guaranteed";
    public static final String BURSTABLE = "Burstable";
    public static final String BEST_EFFORT = "BestEffort";

    private static final List<String> QOS_RESOURCES = List.of("cpu", "memory");
    private static final String HUGEPAGES_PREFIX = "hugepages-";

    /** One set of requests and limits, as a container's or the pod's {@code resources} holds them. */
    public record Requirements(Map<String, Quantity> requests, Map<String, Quantity> limits) {

        public static final Requirements NONE = new Requirements(Map.of(), Map.of());

        public Requirements {
            requests = Map.copyOf(requests);
            limits = Map.copyOf(limits);
        }

        /** The fabric8 form; null (no {@code resources}) is {@link #NONE}. */
        public static Requirements of(ResourceRequirements resources) {
            if (resources == null) {
                return NONE;
            }
            return new Requirements(convert(resources.getRequests()), convert(resources.getLimits()));
        }

        private static Map<String, Quantity> convert(Map<String, io.fabric8.kubernetes.api.model.Quantity> list) {
            Map<String, Quantity> converted = new LinkedHashMap<>();
            if (list != null) {
                list.forEach((name, quantity) -> converted.put(name, Quantity.fromFabric8(quantity)));
            }
            return converted;
        }
    }

    private PodQosClass() {}

    /** The class of a pod in the fabric8 model. */
    public static String of(Pod pod, FeatureGates gates) {
        List<Requirements> containers = new ArrayList<>();
        for (List<Container> list : List.of(pod.getSpec().getContainers(), pod.getSpec().getInitContainers())) {
            list.forEach(container -> containers.add(Requirements.of(container.getResources())));
        }
        ResourceRequirements podLevel = pod.getSpec().getResources();
        return of(podLevel == null ? null : Requirements.of(podLevel), containers, gates);
    }

    /**
     * @param podLevel the pod's {@code spec.resources}, or null when the pod has none
     * @param containers the containers' and init containers' resources
     */
    public static String of(Requirements podLevel, List<Requirements> containers, FeatureGates gates) {
        Map<String, BigDecimal> requests = new HashMap<>();
        Map<String, BigDecimal> limits = new HashMap<>();
        boolean guaranteed = true;
        boolean podLevelDecides = podLevel != null
                && (!gates.enabled(FeatureGates.POD_LEVEL_RESOURCES_FIX_KUBELET_QOS_CLASS)
                        || isPodLevelResourcesSet(podLevel));
        for (Requirements requirements : podLevelDecides ? List.of(podLevel) : containers) {
            addPositive(requests, requirements.requests());
            int positiveLimits = addPositive(limits, requirements.limits());
            // an empty pod-level limits list leaves the pod able to be Guaranteed, as upstream's len check does
            boolean limitsChecked = !podLevelDecides || !requirements.limits().isEmpty();
            if (limitsChecked && positiveLimits < QOS_RESOURCES.size()) {
                guaranteed = false;
            }
        }
        if (requests.isEmpty() && limits.isEmpty()) {
            return BEST_EFFORT;
        }
        return guaranteed && equal(requests, limits) ? GUARANTEED : BURSTABLE;
    }

    /**
     * Upstream's {@code IsPodLevelResourcesSet}: the pod-level requests or limits name a resource pod-level resources
     * support (cpu, memory, a hugepages size), whatever its amount.
     */
    public static boolean isPodLevelResourcesSet(Requirements podLevel) {
        return podLevel.requests().keySet().stream().anyMatch(PodQosClass::supportedOnPodLevel)
                || podLevel.limits().keySet().stream().anyMatch(PodQosClass::supportedOnPodLevel);
    }

    private static boolean supportedOnPodLevel(String resource) {
        return QOS_RESOURCES.contains(resource) || resource.startsWith(HUGEPAGES_PREFIX);
    }

    /**
     * Adds the positive cpu and memory amounts to the totals, capped as Kubernetes' int64 amounts are (a quantity may
     * be written with any exponent); returns how many of the two were positive.
     */
    private static int addPositive(Map<String, BigDecimal> totals, Map<String, Quantity> list) {
        int positive = 0;
        for (String resource : QOS_RESOURCES) {
            Quantity quantity = list.get(resource);
            if (quantity != null && quantity.signum() > 0) {
                totals.merge(resource, quantity.cappedValue(), BigDecimal::add);
                positive++;
            }
        }
        return positive;
    }

    private static boolean equal(Map<String, BigDecimal> requests, Map<String, BigDecimal> limits) {
        return requests.keySet().equals(limits.keySet()) && requests.entrySet().stream()
                .allMatch(request -> request.getValue().compareTo(limits.get(request.getKey())) == 0);
    }
}
