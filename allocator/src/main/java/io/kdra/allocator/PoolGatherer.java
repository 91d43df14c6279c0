package io.kdra.allocator;

import io.kdra.kube.selection.NodeSelectors;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Upstream's GatherPools: which pools can serve a node, at which generation, and whether they are complete and valid.
 * Pools come sorted by driver and pool name, pools with binding conditions last, so the first-fit search is
 * deterministic and prefers devices that need no binding conditions.
 */
final class PoolGatherer {

    private static final Comparator<NodePool> BY_ID =
            Comparator.comparing((NodePool pool) -> pool.id().driver()).thenComparing(pool -> pool.id().pool());

    private PoolGatherer() {}

    static List<NodePool> gather(Inventory inventory, Node node, AllocatorFeatures features)
            throws AllocationException {
        Set<PoolId> candidates = new LinkedHashSet<>();
        String nodeName = node.getMetadata() == null ? null : node.getMetadata().getName();
        if (nodeName != null) {
            candidates.addAll(inventory.poolsByNodeName.getOrDefault(nodeName, Set.of()));
        }
        candidates.addAll(inventory.poolsForAnyNode);

        List<NodePool> withoutBindingConditions = new ArrayList<>();
        List<NodePool> withBindingConditions = new ArrayList<>();
        for (PoolId id : candidates) {
            NodePool pool = gatherPool(id, inventory.pools.get(id), node, features);
            if (pool == null) {
                continue;
            }
            (pool.hasBindingConditions() ? withBindingConditions : withoutBindingConditions).add(pool);
        }
        withoutBindingConditions.sort(BY_ID);
        withBindingConditions.sort(BY_ID);
        withoutBindingConditions.addAll(withBindingConditions);
        return withoutBindingConditions;
    }

    /** The pool for the node, or null when none of its slices is relevant or a newer generation is on its way. */
    private static NodePool gatherPool(PoolId id, List<SliceInfo> slices, Node node, AllocatorFeatures features)
            throws AllocationException {
        List<SliceInfo> relevant = new ArrayList<>();
        for (SliceInfo slice : slices) {
            if (!isRelevant(slice, node, features)) {
                continue;
            }
            if (!relevant.isEmpty() && slice.generation < relevant.get(0).generation) {
                continue;
            }
            if (!relevant.isEmpty() && slice.generation > relevant.get(0).generation) {
                relevant.clear();
            }
            relevant.add(slice);
        }
        if (relevant.isEmpty()) {
            return null;
        }
        SliceInfo first = relevant.get(0);
        if (relevant.size() == first.sliceCount) {
            return build(id, relevant, null, features);
        }
        // Slices that serve other nodes decide whether the pool is complete, or superseded by a newer generation.
        List<SliceInfo> allAtGeneration = new ArrayList<>();
        for (SliceInfo slice : slices) {
            if (slice.generation > first.generation) {
                return null;
            }
            if (slice.generation == first.generation) {
                allAtGeneration.add(slice);
            }
        }
        if (allAtGeneration.size() != first.sliceCount) {
            return NodePool.incomplete(id);
        }
        return build(id, relevant, allAtGeneration, features);
    }

    private static boolean isRelevant(SliceInfo slice, Node node, AllocatorFeatures features)
            throws AllocationException {
        if (!features.partitionableDevices() && (slice.perDeviceNodeSelectionSet || slice.hasCounterSets())) {
            return false;
        }
        // Counter sets are needed to use the pool, whichever node the slice names.
        if (slice.hasCounterSets()) {
            return true;
        }
        try {
            if (slice.nodeName != null || slice.allNodes || slice.nodeSelector != null) {
                return NodeSelectors.nodeMatches(node, slice.nodeName, slice.allNodes, slice.nodeSelector);
            }
            if (slice.perDeviceNodeSelection) {
                for (Device device : slice.publishedDevices) {
                    if (NodeSelectors.nodeMatches(node, DeviceInfo.emptyToNull(device.getNodeName()),
                            Boolean.TRUE.equals(device.getAllNodes()), device.getNodeSelector())) {
                        return true;
                    }
                }
            }
        } catch (NodeSelectors.InvalidNodeSelectorException e) {
            throw new AllocationException("gather pool information: failed to perform node selection for slice "
                    + slice.name + ": failed to parse node selector: " + e.getMessage(), e);
        }
        // No node selection that this version knows: a future extension, skipped.
        return false;
    }

    private static NodePool build(
            PoolId id, List<SliceInfo> slices, List<SliceInfo> allAtGeneration, AllocatorFeatures features) {
        List<SliceInfo> sorted = new ArrayList<>(slices);
        sorted.sort(Comparator.comparing(slice -> slice.name));
        for (SliceInfo slice : sorted) {
            if (slice.invalidReason() != null) {
                return NodePool.invalid(id, slice.invalidReason());
            }
        }
        List<SliceInfo> deviceSlices = new ArrayList<>();
        List<SliceInfo> counterSlices = new ArrayList<>();
        for (SliceInfo slice : sorted) {
            (features.partitionableDevices() && slice.hasCounterSets() ? counterSlices : deviceSlices).add(slice);
        }
        String duplicate = duplicateDeviceName(deviceSlices);
        if (duplicate != null) {
            return NodePool.invalid(id, "duplicate device name " + duplicate);
        }
        if (!features.partitionableDevices()) {
            return new NodePool(id, false, null, deviceSlices, List.of(), Map.of());
        }
        Map<String, Map<String, BigDecimal>> counterSets = new HashMap<>();
        for (SliceInfo slice : counterSlices) {
            for (SliceInfo.CounterSetInfo set : slice.counterSets()) {
                if (counterSets.putIfAbsent(set.name(), set.counters()) != null) {
                    return NodePool.invalid(id, "duplicate counter set name " + set.name());
                }
            }
        }
        String unknownCounter = unknownCounter(counterSets, sorted);
        if (unknownCounter != null) {
            return NodePool.invalid(id, unknownCounter);
        }
        List<SliceInfo> otherSlices = new ArrayList<>();
        if (allAtGeneration != null) {
            Set<SliceInfo> seen = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
            seen.addAll(slices);
            for (SliceInfo slice : allAtGeneration) {
                if (!seen.contains(slice)) {
                    if (slice.invalidReason() != null) {
                        return NodePool.invalid(id, slice.invalidReason());
                    }
                    otherSlices.add(slice);
                }
            }
            unknownCounter = unknownCounter(counterSets, otherSlices);
            if (unknownCounter != null) {
                return NodePool.invalid(id, unknownCounter);
            }
        }
        return new NodePool(id, false, null, deviceSlices, otherSlices, counterSets);
    }

    private static String duplicateDeviceName(List<SliceInfo> slices) {
        Set<String> names = new HashSet<>();
        for (SliceInfo slice : slices) {
            for (DeviceInfo device : slice.devices()) {
                if (!names.add(device.id.device())) {
                    return device.id.device();
                }
            }
        }
        return null;
    }

    private static String unknownCounter(Map<String, Map<String, BigDecimal>> counterSets, List<SliceInfo> slices) {
        for (SliceInfo slice : slices) {
            for (DeviceInfo device : slice.devices()) {
                for (CounterUse use : device.counterUses) {
                    Map<String, BigDecimal> set = counterSets.get(use.counterSet());
                    if (set == null) {
                        return "counter set " + use.counterSet() + " not found";
                    }
                    if (!set.containsKey(use.counter())) {
                        return "counter " + use.counter() + " not found in counter set " + use.counterSet();
                    }
                }
            }
        }
        return null;
    }
}
