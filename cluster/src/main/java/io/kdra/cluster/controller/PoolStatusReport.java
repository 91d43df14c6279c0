package io.kdra.cluster.controller;

import io.fabric8.kubernetes.api.model.resource.v1.CounterSet;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttribute;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCounterConsumption;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceTaint;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.kdra.kube.Quantity;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The status of a ResourcePoolStatusRequest (resource.k8s.io/v1alpha3), computed from the ResourceSlices and
 * ResourceClaims at one moment, as kube-controller-manager's resourcepoolstatusrequest controller does: per pool of
 * the driver (optionally one pool), the slices of its newest generation, device counts (allocated = devices in a
 * non-admin allocation result, unavailable = devices with a NoSchedule or NoExecute taint), the node when every slice
 * names the same one, and the views of partitionable pools (partitionSummary when the pool declares a partition type
 * attribute, counterSets otherwise) and of shareable devices. A pool with fewer slices than it declares is reported
 * with a {@code PoolIncomplete:} validation error and no counts. Pools are sorted by name; {@code poolCount} counts
 * them before the limit cuts the list.
 */
final class PoolStatusReport {

    static final int LIMIT_DEFAULT = 100;
    static final String POOL_INCOMPLETE = "PoolIncomplete:";
    private static final int MAX_ITEMS = 32;
    private static final int MAX_MESSAGE_BYTES = 256;

    /** The computed status, and whether a pool was still incomplete (the controller retries a few times then). */
    record Result(Map<String, Object> status, boolean incomplete) {}

    private record DeviceRecord(String name, List<DeviceCounterConsumption> consumesCounters, boolean allowMultiple,
            Map<String, Quantity> capacity, Map<String, DeviceAttribute> attributes) {}

    private static final class Pool {
        final String name;
        final long generation;
        final String nodeName;
        boolean nodeNameMixed;
        int slices;
        long expectedSlices;
        int total;
        int unavailable;
        final List<DeviceRecord> devices = new ArrayList<>();
        final List<CounterSet> sharedCounters = new ArrayList<>();
        final Set<String> partitionAttributes = new HashSet<>();
        int slicesWithAttribute;

        Pool(String name, long generation, String nodeName) {
            this.name = name;
            this.generation = generation;
            this.nodeName = nodeName;
        }
    }

    private PoolStatusReport() {}

    /**
     * @param poolName only this pool, or null for every pool of the driver
     * @param limit the most pools listed, or null for {@value #LIMIT_DEFAULT}
     */
    static Result compute(String driver, String poolName, Integer limit, List<ResourceSlice> slices,
            List<ResourceClaim> claims, Instant now) {
        Map<String, Long> newest = new HashMap<>();
        for (ResourceSlice slice : matching(slices, driver, poolName)) {
            newest.merge(slice.getSpec().getPool().getName(), generation(slice), Math::max);
        }
        Map<String, Pool> pools = new TreeMap<>();
        for (ResourceSlice slice : matching(slices, driver, poolName)) {
            String name = slice.getSpec().getPool().getName();
            if (generation(slice) < newest.get(name)) {
                continue;
            }
            String sliceNode = slice.getSpec().getNodeName() == null ? "" : slice.getSpec().getNodeName();
            Pool pool = pools.computeIfAbsent(name, n -> new Pool(n, newest.get(n), sliceNode));
            if (!sliceNode.equals(pool.nodeName)) {
                pool.nodeNameMixed = true;
            }
            pool.slices++;
            pool.expectedSlices = nullToZero(slice.getSpec().getPool().getResourceSliceCount());
            for (Device device : list(slice.getSpec().getDevices())) {
                pool.total++;
                if (list(device.getTaints()).stream().map(DeviceTaint::getEffect)
                        .anyMatch(effect -> effect.equals("NoSchedule") || effect.equals("NoExecute"))) {
                    pool.unavailable++;
                }
                Map<String, Quantity> capacity = new TreeMap<>();
                map(device.getCapacity()).forEach((key, value) -> capacity.put(key,
                        Quantity.fromFabric8(value.getValue())));
                pool.devices.add(new DeviceRecord(device.getName(), list(device.getConsumesCounters()),
                        Boolean.TRUE.equals(device.getAllowMultipleAllocations()), capacity,
                        map(device.getAttributes())));
            }
            pool.sharedCounters.addAll(list(slice.getSpec().getSharedCounters()));
            if (slice.getSpec().getPartitionTypeAttribute() != null) {
                pool.partitionAttributes.add(slice.getSpec().getPartitionTypeAttribute());
                pool.slicesWithAttribute++;
            }
        }

        // a device counts once however many claims share it; admin access only observes
        Map<String, Set<String>> inUse = new HashMap<>();
        Map<String, Map<String, Quantity>> consumedCapacity = new HashMap<>();
        for (ResourceClaim claim : claims) {
            if (claim.getStatus() == null || claim.getStatus().getAllocation() == null
                    || claim.getStatus().getAllocation().getDevices() == null) {
                continue;
            }
            for (DeviceRequestAllocationResult result : list(claim.getStatus().getAllocation().getDevices()
                    .getResults())) {
                if (Boolean.TRUE.equals(result.getAdminAccess()) || !driver.equals(result.getDriver())) {
                    continue;
                }
                inUse.computeIfAbsent(result.getPool(), p -> new HashSet<>()).add(result.getDevice());
                map(result.getConsumedCapacity()).forEach((key, quantity) -> consumedCapacity
                        .computeIfAbsent(result.getPool(), p -> new HashMap<>())
                        .merge(key, Quantity.fromFabric8(quantity), Quantity::add));
            }
        }

        List<Map<String, Object>> reported = new ArrayList<>();
        boolean incomplete = false;
        int invalid = 0;
        for (Pool pool : pools.values()) {
            Map<String, Object> status = new LinkedHashMap<>();
            status.put("driver", driver);
            status.put("poolName", pool.name);
            status.put("generation", pool.generation);
            if (!pool.nodeName.isEmpty() && !pool.nodeNameMixed) {
                status.put("nodeName", pool.nodeName);
            }
            if (pool.slices < pool.expectedSlices) {
                incomplete = true;
                status.put("validationError", truncate(String.format(
                        "%s pool %s/%s is incomplete: observed %d/%d slices at generation %d", POOL_INCOMPLETE,
                        driver, pool.name, pool.slices, pool.expectedSlices, pool.generation)));
            } else {
                Set<String> used = inUse.getOrDefault(pool.name, Set.of());
                int allocated = used.size();
                status.put("resourceSliceCount", pool.slices);
                status.put("totalDevices", pool.total);
                status.put("allocatedDevices", allocated);
                status.put("availableDevices", Math.max(0, pool.total - allocated - pool.unavailable));
                status.put("unavailableDevices", pool.unavailable);
                views(driver, pool, used, consumedCapacity.getOrDefault(pool.name, Map.of()), status);
            }
            if (status.containsKey("validationError")) {
                invalid++;
            }
            reported.add(status);
        }
        int poolCount = reported.size();
        int max = limit == null ? LIMIT_DEFAULT : limit;
        List<Map<String, Object>> listed = reported.size() > max ? reported.subList(0, max) : reported;
        String message = invalid > 0
                ? String.format("Calculated status for %d pools (%d incomplete)", listed.size(), invalid)
                : String.format("Calculated status for %d pools", listed.size());
        Map<String, Object> status = new LinkedHashMap<>();
        status.put("poolCount", poolCount);
        if (!listed.isEmpty()) {
            status.put("pools", List.copyOf(listed));
        }
        status.put("conditions", List.of(Map.of("type", "Complete", "status", "True",
                "lastTransitionTime", now.truncatedTo(ChronoUnit.SECONDS).toString(),
                "reason", "CalculationComplete", "message", message)));
        return new Result(status, incomplete);
    }

    /**
     * The views of a complete pool. A pool that declares a partition type attribute gets partitionSummary, one that
     * only shares counters gets counterSets; devices that allow several allocations get shareableSummary. A view that
     * cannot be computed sets the pool's validationError instead, and the counts stay.
     */
    private static void views(String driver, Pool pool, Set<String> used, Map<String, Quantity> consumed,
            Map<String, Object> status) {
        String error = null;
        Object partitionSummary = null;
        Object counterSets = null;
        boolean declared = !pool.partitionAttributes.isEmpty();
        if (declared && (pool.partitionAttributes.size() > 1 || pool.slicesWithAttribute != pool.slices)) {
            error = String.format("PartitionTypeMissing: pool %s/%s has slices that declare different "
                    + "partitionTypeAttribute values", driver, pool.name);
        } else if (declared && pool.sharedCounters.isEmpty()) {
            error = String.format("PartitionTypeMissing: pool %s/%s declares partitionTypeAttribute but publishes "
                    + "no sharedCounters", driver, pool.name);
        } else if (declared) {
            String attribute = pool.partitionAttributes.iterator().next();
            Map<String, List<DeviceRecord>> byType = new TreeMap<>();
            for (DeviceRecord device : pool.devices) {
                String type = partitionType(driver, device.attributes(), attribute);
                if (type == null) {
                    error = String.format("PartitionTypeMissing: device \"%s\" in pool %s/%s does not carry partition "
                            + "type attribute \"%s\"", device.name(), driver, pool.name, attribute);
                    break;
                }
                byType.computeIfAbsent(type, t -> new ArrayList<>()).add(device);
            }
            if (error == null) {
                List<Map<String, Object>> summary = new ArrayList<>();
                Map<String, Map<String, Quantity>> baseline = available(pool, used);
                for (Map.Entry<String, List<DeviceRecord>> type : byType.entrySet()) {
                    if (type.getValue().stream().map(d -> costKey(d.consumesCounters())).distinct().count() > 1) {
                        error = String.format("PartitionCostMismatch: devices of partition type \"%s\" in pool %s/%s "
                                + "consume different counters", type.getKey(), driver, pool.name);
                        break;
                    }
                    Map<String, Map<String, Quantity>> headroom = copy(baseline);
                    int allocatable = 0;
                    for (DeviceRecord device : type.getValue()) {
                        if (!used.contains(device.name()) && fits(device.consumesCounters(), headroom)) {
                            allocatable++;
                            deduct(device.consumesCounters(), headroom);
                        }
                    }
                    summary.add(Map.of("attribute", attribute, "type", type.getKey(),
                            "total", type.getValue().size(), "allocatable", allocatable));
                }
                partitionSummary = summary;
            }
        } else if (!pool.sharedCounters.isEmpty()) {
            counterSets = counterSets(pool, used);
        }
        Map<String, Object> shareable = shareable(pool, used, consumed);
        if (error != null) {
            status.put("validationError", truncate(error));
        } else {
            if (partitionSummary != null) {
                status.put("partitionSummary", partitionSummary);
            }
            if (counterSets != null) {
                status.put("counterSets", counterSets);
            }
        }
        if (shareable != null) {
            status.put("shareableSummary", shareable);
        }
    }

    private static List<Map<String, Object>> counterSets(Pool pool, Set<String> used) {
        Map<String, Map<String, Quantity>> consumed = new HashMap<>();
        for (DeviceRecord device : pool.devices) {
            if (used.contains(device.name())) {
                for (DeviceCounterConsumption cost : device.consumesCounters()) {
                    map(cost.getCounters()).forEach((name, counter) -> consumed
                            .computeIfAbsent(cost.getCounterSet(), s -> new HashMap<>())
                            .merge(name, Quantity.fromFabric8(counter.getValue()), Quantity::add));
                }
            }
        }
        List<Map<String, Object>> sets = new ArrayList<>();
        for (CounterSet set : pool.sharedCounters) {
            Map<String, Object> counters = new TreeMap<>();
            map(set.getCounters()).forEach((name, counter) -> {
                Quantity capacity = Quantity.fromFabric8(counter.getValue());
                Quantity used1 = consumed.getOrDefault(set.getName(), Map.of()).getOrDefault(name,
                        Quantity.of(0, capacity.format()));
                counters.put(name, Map.of("capacity", capacity.toString(), "consumed", used1.toString(),
                        "available", nonNegative(capacity.subtract(used1)).toString()));
            });
            sets.add(Map.of("name", set.getName(), "counters", counters));
        }
        sets.sort(Comparator.comparing(set -> (String) set.get("name")));
        return sets;
    }

    private static Map<String, Object> shareable(Pool pool, Set<String> used, Map<String, Quantity> consumed) {
        int full = 0;
        int partial = 0;
        Map<String, Quantity> total = new TreeMap<>();
        boolean any = false;
        for (DeviceRecord device : pool.devices) {
            if (!device.allowMultiple()) {
                continue;
            }
            any = true;
            if (used.contains(device.name())) {
                partial++;
            } else {
                full++;
            }
            device.capacity().forEach((key, value) -> total.merge(key, value, Quantity::add));
        }
        if (!any || total.size() > MAX_ITEMS) {
            return null;
        }
        List<Map<String, Object>> capacity = new ArrayList<>();
        total.forEach((key, value) -> {
            Quantity used1 = consumed.getOrDefault(key, Quantity.of(0, value.format()));
            capacity.add(Map.of("name", key, "total", value.toString(), "consumed", used1.toString(),
                    "available", nonNegative(value.subtract(used1)).toString()));
        });
        return Map.of("fullyAvailableDevices", full, "partiallyAvailableDevices", partial, "capacity", capacity);
    }

    /** The shared counters left after the devices in use, each in-use device debited once. */
    private static Map<String, Map<String, Quantity>> available(Pool pool, Set<String> used) {
        Map<String, Map<String, Quantity>> available = new HashMap<>();
        for (CounterSet set : pool.sharedCounters) {
            map(set.getCounters()).forEach((name, counter) -> available
                    .computeIfAbsent(set.getName(), s -> new HashMap<>())
                    .put(name, Quantity.fromFabric8(counter.getValue())));
        }
        for (DeviceRecord device : pool.devices) {
            if (used.contains(device.name())) {
                deduct(device.consumesCounters(), available);
            }
        }
        return available;
    }

    private static boolean fits(List<DeviceCounterConsumption> costs, Map<String, Map<String, Quantity>> available) {
        for (DeviceCounterConsumption cost : costs) {
            Map<String, Quantity> set = available.getOrDefault(cost.getCounterSet(), Map.of());
            for (var counter : map(cost.getCounters()).entrySet()) {
                Quantity have = set.get(counter.getKey());
                if (have == null || have.compareTo(Quantity.fromFabric8(counter.getValue().getValue())) < 0) {
                    return false;
                }
            }
        }
        return true;
    }

    private static void deduct(List<DeviceCounterConsumption> costs, Map<String, Map<String, Quantity>> available) {
        for (DeviceCounterConsumption cost : costs) {
            Map<String, Quantity> set = available.get(cost.getCounterSet());
            if (set != null) {
                map(cost.getCounters()).forEach((name, counter) -> set.computeIfPresent(name,
                        (n, have) -> have.subtract(Quantity.fromFabric8(counter.getValue()))));
            }
        }
    }

    private static Map<String, Map<String, Quantity>> copy(Map<String, Map<String, Quantity>> counters) {
        Map<String, Map<String, Quantity>> copy = new HashMap<>();
        counters.forEach((set, values) -> copy.put(set, new HashMap<>(values)));
        return copy;
    }

    private static String costKey(List<DeviceCounterConsumption> costs) {
        Set<String> parts = new TreeSet<>();
        for (DeviceCounterConsumption cost : costs) {
            map(cost.getCounters()).forEach((name, counter) -> parts.add(cost.getCounterSet() + "/" + name + "="
                    + Quantity.fromFabric8(counter.getValue())));
        }
        return String.join(",", parts);
    }

    /** The string value of the attribute on the device; an attribute without domain is in the driver's. */
    private static String partitionType(String driver, Map<String, DeviceAttribute> attributes, String attribute) {
        for (Map.Entry<String, DeviceAttribute> entry : attributes.entrySet()) {
            String qualified = entry.getKey().contains("/") ? entry.getKey() : driver + "/" + entry.getKey();
            if (qualified.equals(attribute)) {
                return entry.getValue().getString();
            }
        }
        return null;
    }

    private static Quantity nonNegative(Quantity quantity) {
        return quantity.signum() < 0 ? Quantity.of(0, quantity.format()) : quantity;
    }

    private static List<ResourceSlice> matching(List<ResourceSlice> slices, String driver, String poolName) {
        return slices.stream().filter(slice -> slice.getSpec() != null && driver.equals(slice.getSpec().getDriver())
                        && slice.getSpec().getPool() != null
                        && (poolName == null || poolName.isEmpty() || poolName.equals(slice.getSpec().getPool()
                                .getName())))
                .toList();
    }

    private static long generation(ResourceSlice slice) {
        return nullToZero(slice.getSpec().getPool().getGeneration());
    }

    private static long nullToZero(Long value) {
        return value == null ? 0 : value;
    }

    private static String truncate(String message) {
        return message.length() > MAX_MESSAGE_BYTES ? message.substring(0, MAX_MESSAGE_BYTES) : message;
    }

    private static <T> List<T> list(List<T> list) {
        return list == null ? List.of() : list;
    }

    private static <V> Map<String, V> map(Map<String, V> map) {
        return map == null ? Map.of() : map;
    }
}
