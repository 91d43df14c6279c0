package io.kdra.allocator;

import io.kdra.kube.taint.DeviceTaints;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceTaintRule;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The published devices, prepared once for many allocations: ResourceSlices grouped into pools and indexed by node,
 * DeviceTaintRules applied, attributes, capacities and counters parsed, and selector results cached per device.
 * Build one with {@link StructuredAllocator#inventory} and reuse it while the slices and rules stay the same.
 * Thread-safe.
 */
public final class Inventory {

    final StructuredAllocator owner;
    /** Slices per pool, in input order. */
    final Map<PoolId, List<SliceInfo>> pools;
    /** Pools with a slice bound to the node by nodeName. */
    final Map<String, Set<PoolId>> poolsByNodeName;
    /** Pools with a slice that is not bound to one node by name. */
    final Set<PoolId> poolsForAnyNode;

    private final int deviceCount;
    private final ConcurrentHashMap<String, SelectorResults> selectorResults = new ConcurrentHashMap<>();
    /** Whether a node selector decides which slices or devices serve a node; else views depend on the name only. */
    private final boolean nodeLabelsMatter;
    private final ConcurrentHashMap<String, NodeView> viewsByNodeName = new ConcurrentHashMap<>();

    Inventory(StructuredAllocator owner, Collection<ResourceSlice> slices, Collection<DeviceTaintRule> taintRules) {
        this.owner = owner;
        List<DeviceTaintRule> rules = owner.features().taintRules() ? List.copyOf(taintRules) : List.of();
        Map<PoolId, List<SliceInfo>> byPool = new LinkedHashMap<>();
        Map<String, Set<PoolId>> byNode = new HashMap<>();
        Set<PoolId> anyNode = new LinkedHashSet<>();
        int devices = 0;
        boolean labelsMatter = false;
        for (ResourceSlice slice : slices) {
            SliceInfo info = new SliceInfo(slice, devices, (sliceInfo, device) -> DeviceTaints.ruleTaints(rules, sliceInfo.driver, sliceInfo.poolName, device));
            devices += info.publishedDevices.size();
            byPool.computeIfAbsent(info.poolId, id -> new ArrayList<>()).add(info);
            if (info.nodeName != null) {
                byNode.computeIfAbsent(info.nodeName, name -> new LinkedHashSet<>()).add(info.poolId);
            } else {
                anyNode.add(info.poolId);
            }
            labelsMatter |= info.nodeSelector != null
                    || info.publishedDevices.stream().anyMatch(device -> device.getNodeSelector() != null);
        }
        this.nodeLabelsMatter = labelsMatter;
        this.pools = byPool;
        this.poolsByNodeName = byNode;
        this.poolsForAnyNode = anyNode;
        this.deviceCount = devices;
    }

    /** The number of devices in all slices. */
    public int deviceCount() {
        return deviceCount;
    }

    /** The pools that serve the node; remembered per node name when node labels play no part. */
    NodeView nodeView(Node node) throws AllocationException {
        String name = node.getMetadata() == null ? null : node.getMetadata().getName();
        if (nodeLabelsMatter || name == null) {
            return NodeView.of(PoolGatherer.gather(this, node, owner.features()));
        }
        NodeView view = viewsByNodeName.get(name);
        if (view == null) {
            view = NodeView.of(PoolGatherer.gather(this, node, owner.features()));
            viewsByNodeName.putIfAbsent(name, view);
        }
        return view;
    }

    SelectorResults selectorResults(String expression) {
        return selectorResults.computeIfAbsent(expression, key -> new SelectorResults(deviceCount));
    }
}
