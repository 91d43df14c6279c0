package io.kdra.cluster.kubelet;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.kdra.cluster.runtime.LinuxResources;
import io.kdra.kube.FeatureGates;
import io.kdra.kube.PodQosClass;
import io.kdra.kube.Quantity;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The kubelet's resource values for a pod's cgroup ({@code ResourceConfigForPod}) and for each container's (the
 * container manager's {@code LinuxContainerResources}), with each container's {@code oom_score_adj}
 * ({@code GetContainerOOMScoreAdjust}) and the pod's allocated requests, including what the devices of the pod's
 * claims add to the node resources (KEP-5517, {@link ClaimAllocatable}):
 *
 * <ul>
 *   <li>a container's limits grow by the whole amount of every claim it references: the mapped amount, the pod's
 *       overhead and its own overhead (a container without a limit stays unlimited, or inherits the pod-level limit);
 *   <li>the pod's requests and limits grow by each claim's mapped amount and pod overhead once and by its
 *       per-container overhead once for each container that references it; pod-level resources
 *       ({@code spec.resources}) already hold the devices' share and are taken as they are;
 *   <li>for the OOM score, a container's memory request grows by its own overhead and by its share of the mapped
 *       amount and of the pod's overhead (split evenly between the containers that reference the claim).
 * </ul>
 *
 * Amounts are millicores for {@code cpu} and bytes otherwise.
 *
 * @param qosClass the pod's QoS class
 * @param pod the pod cgroup's values
 * @param containers the values of each container (regular and init) by name
 * @param allocatedRequests the pod's requests of CPU and memory, devices included, as {@code status.allocatedResources}
 *     reports them
 */
record PodResourceConfig(String qosClass, LinuxResources pod, Map<String, LinuxResources> containers,
        Map<String, Long> allocatedRequests) {

    static final String CPU = "cpu";
    static final String MEMORY = "memory";
    static final String HUGEPAGES_PREFIX = "hugepages-";

    static final long MIN_SHARES = 2;
    static final long MAX_SHARES = 262144;
    static final long MIN_QUOTA = 1000;
    static final int GUARANTEED_OOM_SCORE_ADJ = -997;
    static final int BEST_EFFORT_OOM_SCORE_ADJ = 1000;

    PodResourceConfig {
        containers = Map.copyOf(containers);
        allocatedRequests = Map.copyOf(allocatedRequests);
    }

    /**
     * @param claims what the pod's claims add (none without gate DRANodeAllocatableResources)
     * @param memoryCapacity the node's memory capacity in bytes
     * @param nodeHugepages the node's hugepage resources ({@code hugepages-2Mi}), each of which gets a limit (zero
     *     when nothing asks for it, as the kubelet writes)
     * @param gates the kubelet's gates, for the QoS class of a pod whose status does not have it yet
     */
    static PodResourceConfig compute(Pod pod, List<ClaimAllocatable> claims, long memoryCapacity,
            Set<String> nodeHugepages, FeatureGates gates) {
        List<ContainerSpec> regular = new ArrayList<>();
        pod.getSpec().getContainers().forEach(container -> regular.add(ContainerSpec.of(container, false)));
        List<ContainerSpec> init = new ArrayList<>();
        pod.getSpec().getInitContainers().forEach(container -> init.add(ContainerSpec.of(container, true)));
        List<ContainerSpec> all = new ArrayList<>(init);
        all.addAll(regular);

        Set<String> hugepages = new TreeSet<>(nodeHugepages);
        for (ContainerSpec container : all) {
            container.limits.keySet().stream().filter(name -> name.startsWith(HUGEPAGES_PREFIX)).forEach(hugepages::add);
        }
        for (ClaimAllocatable claim : claims) {
            for (Map<String, Long> amounts : List.of(claim.mapped(), claim.perPod(), claim.perContainer())) {
                amounts.keySet().stream().filter(name -> name.startsWith(HUGEPAGES_PREFIX)).forEach(hugepages::add);
            }
        }

        ResourceRequirements podLevel = pod.getSpec().getResources();
        Map<String, Long> podLevelRequests = podLevel == null ? Map.of() : units(podLevel.getRequests());
        Map<String, Long> podLevelLimits = podLevel == null ? Map.of() : units(podLevel.getLimits());
        // GetPodQOS: the class the API server recorded, else computed
        String qos = pod.getStatus() != null && pod.getStatus().getQosClass() != null
                && !pod.getStatus().getQosClass().isEmpty() ? pod.getStatus().getQosClass()
                : PodQosClass.of(pod, gates);

        Map<String, Long> podRequests = new HashMap<>();
        Map<String, Long> podLimits = new HashMap<>();
        Set<String> resources = new LinkedHashSet<>(List.of(CPU, MEMORY));
        resources.addAll(hugepages);
        for (String resource : resources) {
            long claimed = 0;
            for (ClaimAllocatable claim : claims) {
                claimed += claim.shared(resource) + claim.perContainer(resource) * claim.containers().size();
            }
            if (podLevelRequests.containsKey(resource) || podLevelLimits.containsKey(resource)) {
                if (podLevelRequests.containsKey(resource)) {
                    podRequests.put(resource, podLevelRequests.get(resource));
                }
                if (podLevelLimits.containsKey(resource)) {
                    podLimits.put(resource, podLevelLimits.get(resource));
                }
                continue;
            }
            podRequests.put(resource, aggregateRequest(regular, init, resource) + claimed);
            if (regular.stream().allMatch(container -> container.limits.getOrDefault(resource, 0L) > 0)) {
                podLimits.put(resource, regular.stream().mapToLong(c -> c.limits.get(resource)).sum() + claimed);
            }
        }

        Map<String, Long> podHugepages = new TreeMap<>();
        for (String resource : hugepages) {
            podHugepages.put(pageSizeName(resource), podRequests.getOrDefault(resource, 0L));
        }
        LinuxResources podResources = switch (qos) {
            case PodQosClass.BEST_EFFORT ->
                    new LinuxResources(MIN_SHARES, -1, 0, podHugepages, BEST_EFFORT_OOM_SCORE_ADJ);
            default -> new LinuxResources(shares(podRequests.getOrDefault(CPU, 0L)),
                    podLimits.containsKey(CPU) ? quota(podLimits.get(CPU)) : -1, podLimits.getOrDefault(MEMORY, 0L),
                    podHugepages, 0);
        };

        long remainingMemory = 0;
        if (podLevelRequests.getOrDefault(MEMORY, 0L) > 0 && !all.isEmpty()) {
            long aggregate = 0;
            for (ContainerSpec container : all) {
                aggregate += container.requests.getOrDefault(MEMORY, 0L) + share(container, MEMORY, claims);
            }
            remainingMemory = (podLevelRequests.get(MEMORY) - aggregate) / all.size();
        }

        Map<String, LinuxResources> containers = new LinkedHashMap<>();
        for (ContainerSpec container : all) {
            Long cpuLimit = limit(container, CPU, claims, podLevelLimits);
            Long memoryLimit = limit(container, MEMORY, claims, podLevelLimits);
            long cpuRequest = container.requests.getOrDefault(CPU, 0L);
            long shares = cpuRequest == 0 && cpuLimit != null ? shares(cpuLimit) : shares(cpuRequest);
            Map<String, Long> containerHugepages = new TreeMap<>();
            for (String resource : hugepages) {
                containerHugepages.put(pageSizeName(resource),
                        container.limits.getOrDefault(resource, 0L) + added(container, resource, claims));
            }
            long memoryRequest = container.requests.getOrDefault(MEMORY, 0L)
                    + share(container, MEMORY, claims) + remainingMemory;
            containers.put(container.name, new LinuxResources(shares, cpuLimit == null ? -1 : quota(cpuLimit),
                    memoryLimit == null ? 0 : memoryLimit, containerHugepages,
                    oomScoreAdj(qos, memoryRequest, memoryCapacity)));
        }

        Map<String, Long> allocated = new TreeMap<>();
        for (String resource : List.of(CPU, MEMORY)) {
            long request = podRequests.getOrDefault(resource, 0L);
            if (request > 0) {
                allocated.put(resource, request);
            }
        }
        return new PodResourceConfig(qos, podResources, containers, allocated);
    }

    /** The pod's request as the kubelet sums it: the regular containers and sidecars, or the largest init container. */
    private static long aggregateRequest(List<ContainerSpec> regular, List<ContainerSpec> init, String resource) {
        long sum = regular.stream().mapToLong(c -> c.requests.getOrDefault(resource, 0L)).sum();
        long sidecars = 0;
        long largest = sum;
        for (ContainerSpec container : init) {
            long request = container.requests.getOrDefault(resource, 0L);
            if (container.sidecar) {
                sidecars += request;
            } else {
                largest = Math.max(largest, sidecars + request);
            }
        }
        return Math.max(sum + sidecars, largest);
    }

    /** The container's limit grown by its claims, else the pod-level limit, else none (null). */
    private static Long limit(ContainerSpec container, String resource, List<ClaimAllocatable> claims,
            Map<String, Long> podLevelLimits) {
        Long own = container.limits.get(resource);
        if (own != null && own > 0) {
            return own + added(container, resource, claims);
        }
        return podLevelLimits.get(resource);
    }

    /** What the container's claims add to its limits: all of each. */
    private static long added(ContainerSpec container, String resource, List<ClaimAllocatable> claims) {
        long added = 0;
        for (ClaimAllocatable claim : claims) {
            if (claim.containers().contains(container.name)) {
                added += claim.shared(resource) + claim.perContainer(resource);
            }
        }
        return added;
    }

    /** The container's share of its claims' amounts in its request: shared amounts split by the referencing ones. */
    private static long share(ContainerSpec container, String resource, List<ClaimAllocatable> claims) {
        long share = 0;
        for (ClaimAllocatable claim : claims) {
            if (claim.containers().contains(container.name)) {
                share += claim.shared(resource) / claim.containers().size() + claim.perContainer(resource);
            }
        }
        return share;
    }

    /** qos.GetContainerOOMScoreAdjust for a container with this effective memory request. */
    static int oomScoreAdj(String qosClass, long memoryRequest, long memoryCapacity) {
        if (qosClass.equals(PodQosClass.GUARANTEED)) {
            return GUARANTEED_OOM_SCORE_ADJ;
        }
        if (qosClass.equals(PodQosClass.BEST_EFFORT)) {
            return BEST_EFFORT_OOM_SCORE_ADJ;
        }
        long adjust = 1000 - 1000 * memoryRequest / memoryCapacity;
        // a Guaranteed container using all of the node's memory scores 3: a Burstable one must score higher
        if (adjust < 1000 + GUARANTEED_OOM_SCORE_ADJ) {
            return 1000 + GUARANTEED_OOM_SCORE_ADJ;
        }
        if (adjust == BEST_EFFORT_OOM_SCORE_ADJ) {
            return BEST_EFFORT_OOM_SCORE_ADJ - 1;
        }
        return (int) adjust;
    }

    /** cm.MilliCPUToShares. */
    static long shares(long milliCpu) {
        if (milliCpu == 0) {
            return MIN_SHARES;
        }
        long shares = milliCpu * 1024 / 1000;
        return Math.max(MIN_SHARES, Math.min(MAX_SHARES, shares));
    }

    /** cm.MilliCPUToQuota with the 100 ms period. */
    static long quota(long milliCpu) {
        if (milliCpu == 0) {
            return -1;
        }
        return Math.max(MIN_QUOTA, milliCpu * LinuxResources.CPU_PERIOD / 1000);
    }

    /** The kernel's name of a hugepage size: {@code hugepages-2Mi} is {@code 2MB}, {@code hugepages-1Gi} {@code 1GB}. */
    static String pageSizeName(String resource) {
        long bytes = Quantity.parse(resource.substring(HUGEPAGES_PREFIX.length())).value().longValue();
        String[] units = {"B", "KB", "MB", "GB", "TB"};
        int unit = 0;
        while (bytes >= 1024 && bytes % 1024 == 0 && unit < units.length - 1) {
            bytes /= 1024;
            unit++;
        }
        return bytes + units[unit];
    }

    /** A resource list in the kubelet's units, zero amounts left out. */
    static Map<String, Long> units(Map<String, io.fabric8.kubernetes.api.model.Quantity> list) {
        Map<String, Long> units = new HashMap<>();
        if (list != null) {
            list.forEach((name, quantity) -> units.put(name, units(name, Quantity.fromFabric8(quantity))));
        }
        units.values().removeIf(value -> value == 0);
        return units;
    }

    /** A quantity in the kubelet's units: millicores for CPU (rounded up, as MilliValue), else the value rounded up. */
    static long units(String resource, Quantity quantity) {
        BigDecimal value = quantity.value();
        if (resource.equals(CPU)) {
            value = value.movePointRight(3);
        }
        return value.setScale(0, RoundingMode.CEILING).longValueExact();
    }

    /** A container's requests (defaulted from its limits, as the API server does) and limits. */
    record ContainerSpec(String name, boolean sidecar, Map<String, Long> requests, Map<String, Long> limits) {

        static ContainerSpec of(Container container, boolean init) {
            ResourceRequirements resources = container.getResources();
            Map<String, Long> limits = resources == null ? Map.of() : units(resources.getLimits());
            Map<String, Long> requests = new HashMap<>(limits);
            if (resources != null) {
                requests.putAll(units(resources.getRequests()));
            }
            return new ContainerSpec(container.getName(), init && "Always".equals(container.getRestartPolicy()),
                    requests, limits);
        }
    }
}
