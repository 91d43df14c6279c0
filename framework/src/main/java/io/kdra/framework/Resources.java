package io.kdra.framework;

import io.fabric8.kubernetes.api.model.NodeSelector;
import io.fabric8.kubernetes.api.model.NodeSelectorBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.Counter;
import io.fabric8.kubernetes.api.model.resource.v1.CounterSet;
import io.fabric8.kubernetes.api.model.resource.v1.CounterSetBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttribute;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttributeBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacityBuilder;
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
    /** The pool of {@link #partitionableResources}. */
    public static final String PARTITIONED_POOL = "partitioned";
    /** The pool of {@link #shareableResources}. */
    public static final String SHAREABLE_POOL = "shareable";
    /** The device attribute naming the partition profile of {@link #partitionableResources}' devices. */
    public static final String PARTITION_PROFILE_ATTRIBUTE = "dra.example.com/profile";

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
                        pool.skipNodeOperations(), pool.partitionTypeAttribute())));
                tainted.put(key, new DriverResources(pools));
            });
            return tainted;
        };
    }

    /**
     * A partitionable pool {@value #PARTITIONED_POOL} on the first node (upstream's {@code PartitionableResources}):
     * one shared counter set of 8Gi memory and devices carrying the partition profile attribute
     * {@value #PARTITION_PROFILE_ATTRIBUTE}: {@code full} ({@code Full}, all of it) and {@code half-0},
     * {@code half-1} ({@code Half}, 4Gi each). With {@code withType}, the pool declares that attribute as its
     * partition type attribute.
     */
    public static Generator partitionableResources(boolean withType) {
        return nodes -> {
            String node = nodes.nodeNames().get(0);
            CounterSet counters = new CounterSetBuilder().withName("memory-counters")
                    .addToCounters("memory", new Counter(new Quantity("8Gi"))).build();
            List<Device> devices = List.of(partition("full", "Full", "8Gi"), partition("half-0", "Half", "4Gi"),
                    partition("half-1", "Half", "4Gi"));
            Pool pool = Pool.of(List.of(new Slice(List.of(), List.of(counters)), Slice.ofDevices(devices)));
            return Map.of(node, DriverResources.of(PARTITIONED_POOL,
                    withType ? pool.withPartitionTypeAttribute(PARTITION_PROFILE_ATTRIBUTE) : pool));
        };
    }

    /**
     * A pool {@value #SHAREABLE_POOL} on the first node with {@code count} devices {@code shareable-<i>} that allow
     * several allocations, each with 8Gi of consumable {@code memory} (upstream's {@code ShareableResources}).
     */
    public static Generator shareableResources(int count) {
        return nodes -> {
            String node = nodes.nodeNames().get(0);
            List<Device> devices = IntStream.range(0, count).mapToObj(i -> new DeviceBuilder()
                    .withName("shareable-" + i).withAllowMultipleAllocations(true)
                    .addToCapacity("memory", new DeviceCapacityBuilder().withValue(new Quantity("8Gi")).build())
                    .build()).toList();
            return Map.of(node, DriverResources.of(SHAREABLE_POOL, Pool.ofDevices(devices)));
        };
    }

    private static Device partition(String name, String type, String memory) {
        return new DeviceBuilder().withName(name)
                .addToAttributes(PARTITION_PROFILE_ATTRIBUTE, new DeviceAttributeBuilder().withString(type).build())
                .addNewConsumesCounter().withCounterSet("memory-counters")
                .addToCounters("memory", new Counter(new Quantity(memory))).endConsumesCounter()
                .build();
    }
}
