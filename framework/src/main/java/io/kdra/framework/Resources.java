package io.kdra.framework;

import io.fabric8.kubernetes.api.model.NodeSelector;
import io.fabric8.kubernetes.api.model.NodeSelectorBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.CounterSet;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttribute;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceTaint;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceTaintBuilder;
import io.kdra.plugin.resourceslice.DriverResources;
import io.kdra.plugin.resourceslice.Pool;
import io.kdra.plugin.resourceslice.Slice;
import io.kdra.testdriver.DriverDevices;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import java.util.stream.IntStream;

/**
 * The resource generators of upstream's {@code utils}: what a {@link Driver} publishes, keyed by node name, plus
 * {@link #MULTI_HOST} for network-attached pools. Node-local pools are published by each node's plugin through its
 * node-bound identity; {@link #MULTI_HOST} pools by the framework with the admin client.
 */
public final class Resources {

    /** The key of network-attached pools, published by the framework (upstream's {@code multiHostDriverResources}). */
    public static final String MULTI_HOST = "multi-host";
    /** The pool of {@link #networkResources}. */
    public static final String NETWORK_POOL = "network";

    /** Computes what a driver publishes once the nodes are known (upstream's {@code driverResourcesGenFunc}). */
    @FunctionalInterface
    public interface Generator extends Function<Nodes, Map<String, DriverResources>> {
    }

    /** Changes what a driver publishes (upstream's {@code driverResourcesMutatorFunc}). */
    @FunctionalInterface
    public interface Mutator extends UnaryOperator<Map<String, DriverResources>> {
    }

    private Resources() {
    }

    /**
     * One network-attached pool {@value #NETWORK_POOL} (generation 1) with devices {@code device-0} ...
     * {@code device-<maxAllocations-1>}, usable on the selected nodes; with {@code tainted}, every device has the taint
     * {@code example.com/taint=tainted:NoSchedule}.
     */
    public static Generator networkResources(int maxAllocations, boolean tainted) {
        return nodes -> {
            List<Device> devices = IntStream.range(0, maxAllocations).mapToObj(i -> {
                DeviceBuilder device = new DeviceBuilder().withName("device-" + i);
                if (tainted) {
                    device.withTaints(new DeviceTaintBuilder().withKey("example.com/taint").withValue("tainted")
                            .withEffect("NoSchedule").build());
                }
                return device.build();
            }).toList();
            // matchExpressions, unlike matchFields, allow several values
            NodeSelector onSelectedNodes = new NodeSelectorBuilder().addNewNodeSelectorTerm().addNewMatchExpression()
                    .withKey("kubernetes.io/hostname").withOperator("In").withValues(nodes.nodeNames())
                    .endMatchExpression().endNodeSelectorTerm().build();
            return Map.of(MULTI_HOST, DriverResources.of(NETWORK_POOL,
                    new Pool(List.of(Slice.ofDevices(devices)), onSelectedNodes, false, false, 1)));
        };
    }

    /**
     * Node-local pools, one per node named after it (the lazy form of {@link #driverResourcesNow}).
     *
     * @param maxAllocations devices per node, {@code device-00} ...; -1 for none (the node gets no entry)
     * @param devicesPerNode for the first nodes in order: their devices by name, with attributes
     */
    @SafeVarargs
    public static Generator driverResources(int maxAllocations,
            Map<String, Map<String, DeviceAttribute>>... devicesPerNode) {
        return nodes -> driverResourcesNow(nodes, maxAllocations, devicesPerNode);
    }

    /** See {@link #driverResources}. */
    @SafeVarargs
    public static Map<String, DriverResources> driverResourcesNow(Nodes nodes, int maxAllocations,
            Map<String, Map<String, DeviceAttribute>>... devicesPerNode) {
        Map<String, DriverResources> resources = new LinkedHashMap<>();
        List<String> names = nodes.nodeNames();
        for (int i = 0; i < names.size(); i++) {
            String node = names.get(i);
            List<Device> devices;
            if (i < devicesPerNode.length) {
                devices = devicesPerNode[i].entrySet().stream().map(entry -> new DeviceBuilder()
                        .withName(entry.getKey()).withAttributes(entry.getValue()).build()).toList();
            } else if (maxAllocations >= 0) {
                devices = DriverDevices.numbered(maxAllocations);
            } else {
                continue;
            }
            resources.put(node, DriverResources.of(node, Pool.ofDevices(devices)));
        }
        return resources;
    }

    /** The operations of ResourceSlice {@code spec.skipNodeOperations}: every node operation. */
    public static final String SKIP_NODE_OPERATION_ALL = "*";
    /** The operations of ResourceSlice {@code spec.skipNodeOperations}: NodeUnprepareResources only. */
    public static final String SKIP_NODE_OPERATION_NODE_UNPREPARE_RESOURCES = "NodeUnprepareResources";

    /**
     * Like {@link #driverResourcesNow(Nodes, int, Map[])} without per-node attributes, with slices that tell the
     * kubelet to skip these node operations (upstream's {@code DriverResourcesWithSkipNodeOperationsNow}).
     */
    public static Map<String, DriverResources> driverResourcesWithSkipNodeOperationsNow(Nodes nodes,
            int maxAllocations, String... operations) {
        Map<String, DriverResources> resources = new LinkedHashMap<>();
        driverResourcesNow(nodes, maxAllocations).forEach((node, driverResources) -> {
            Map<String, Pool> pools = new LinkedHashMap<>();
            driverResources.pools().forEach((name, pool) -> pools.put(name,
                    pool.withSkipNodeOperations(List.of(operations))));
            resources.put(node, new DriverResources(pools));
        });
        return resources;
    }

    /**
     * A pool on the first node with the given counter sets in one slice and the devices in another (upstream's
     * {@code ToDriverResources}).
     */
    public static Generator toDriverResources(List<CounterSet> counters, Device... devices) {
        return nodes -> {
            String node = nodes.nodeNames().get(0);
            return Map.of(node, DriverResources.of(node, Pool.of(List.of(new Slice(List.of(), counters),
                    Slice.ofDevices(List.of(devices))))));
        };
    }

    /** Adds the taints to every device of every slice of every pool (upstream's {@code TaintAllDevices}). */
    public static Mutator taintAllDevices(DeviceTaint... taints) {
        return resources -> {
            Map<String, DriverResources> tainted = new LinkedHashMap<>();
            resources.forEach((key, driverResources) -> {
                Map<String, Pool> pools = new LinkedHashMap<>();
                driverResources.pools().forEach((name, pool) -> pools.put(name, new Pool(pool.slices().stream()
                        .map(slice -> new Slice(slice.devices().stream().map(device -> {
                            List<DeviceTaint> all = new ArrayList<>(device.getTaints());
                            all.addAll(List.of(taints));
                            return new DeviceBuilder(device).withTaints(all).build();
                        }).toList(), slice.sharedCounters())).toList(),
                        pool.nodeSelector(), pool.allNodes(), pool.perDeviceNodeSelection(), pool.generation(),
                        pool.skipNodeOperations())));
                tainted.put(key, new DriverResources(pools));
            });
            return tainted;
        };
    }
}
