package io.kdra.plugin.resourceslice;

import io.fabric8.kubernetes.api.model.NodeSelector;
import io.fabric8.kubernetes.api.model.resource.v1.CounterSet;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCounterConsumption;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One resource pool of a driver. Node-local pools (published by a publisher with a node owner) leave all node
 * selection fields unset and get {@code spec.nodeName}; other pools set exactly one of them.
 *
 * @param slices what to publish, in order of preference; an empty list publishes one empty slice ("the driver runs
 *     but has no devices"), which is different from no pool
 * @param nodeSelector nodes that can use the pool, or {@code null}
 * @param allNodes whether every node can use the pool
 * @param perDeviceNodeSelection whether each device names its own node(s)
 * @param generation a minimum pool generation; 0 lets the publisher count generations itself
 * @param skipNodeOperations the node operations the kubelet skips for the pool's devices ({@code spec
 *     .skipNodeOperations} of every slice: {@code NodePrepareResources}, {@code NodeUnprepareResources}, {@code *});
 *     empty for none
 * @param partitionTypeAttribute the fully qualified device attribute whose value names each device's partition type
 *     ({@code spec.partitionTypeAttribute} of every slice, DRAPartitionableDevicesType), or {@code null}
 */
public record Pool(List<Slice> slices, NodeSelector nodeSelector, boolean allNodes, boolean perDeviceNodeSelection,
        long generation, List<String> skipNodeOperations, String partitionTypeAttribute) {

    /** Copies the lists; {@code null} means none. */
    public Pool {
        slices = slices == null ? List.of() : List.copyOf(slices);
        skipNodeOperations = skipNodeOperations == null ? List.of() : List.copyOf(skipNodeOperations);
    }

    /** A pool whose devices need every node operation, without a partition type attribute. */
    public Pool(List<Slice> slices, NodeSelector nodeSelector, boolean allNodes, boolean perDeviceNodeSelection,
            long generation) {
        this(slices, nodeSelector, allNodes, perDeviceNodeSelection, generation, List.of(), null);
    }

    /** This pool with the given node operations skipped. */
    public Pool withSkipNodeOperations(List<String> operations) {
        return new Pool(slices, nodeSelector, allNodes, perDeviceNodeSelection, generation, operations,
                partitionTypeAttribute);
    }

    /** This pool with the partition type attribute. */
    public Pool withPartitionTypeAttribute(String attribute) {
        return new Pool(slices, nodeSelector, allNodes, perDeviceNodeSelection, generation, skipNodeOperations,
                attribute);
    }

    /** A pool with the given slices and no node selection, as node-local pools have. */
    public static Pool of(List<Slice> slices) {
        return new Pool(slices, null, false, false, 0);
    }

    /** A node-local pool with one slice of devices. */
    public static Pool ofDevices(List<Device> devices) {
        return of(List.of(Slice.ofDevices(devices)));
    }

    /** How many of nodeSelector, allNodes and perDeviceNodeSelection are set. */
    int nodeSelections() {
        return (nodeSelector != null ? 1 : 0) + (allNodes ? 1 : 0) + (perDeviceNodeSelection ? 1 : 0);
    }

    /**
     * Checks what the API server cannot check per slice: unique device and counter set names, counter references, and
     * at most one kind of node selection.
     *
     * @throws IllegalArgumentException naming the pool and the problem
     */
    void validate(String name) {
        if (nodeSelections() > 1) {
            throw new IllegalArgumentException("pool \"" + name
                    + "\": only one of nodeSelector, allNodes and perDeviceNodeSelection may be set");
        }
        Map<String, CounterSet> counterSets = new HashMap<>();
        for (Slice slice : slices) {
            for (CounterSet counterSet : slice.sharedCounters()) {
                if (counterSets.put(counterSet.getName(), counterSet) != null) {
                    throw new IllegalArgumentException("found duplicate counter set \"" + counterSet.getName()
                            + "\" in pool \"" + name + "\"");
                }
            }
        }
        Set<String> deviceNames = new HashSet<>();
        for (Slice slice : slices) {
            for (Device device : slice.devices()) {
                if (!deviceNames.add(device.getName())) {
                    throw new IllegalArgumentException("found duplicate device \"" + device.getName()
                            + "\" in pool \"" + name + "\"");
                }
                checkCounterReferences(name, device, counterSets);
            }
        }
    }

    private static void checkCounterReferences(String pool, Device device, Map<String, CounterSet> counterSets) {
        for (DeviceCounterConsumption consumption : device.getConsumesCounters()) {
            CounterSet counterSet = counterSets.get(consumption.getCounterSet());
            if (counterSet == null) {
                throw new IllegalArgumentException("pool \"" + pool + "\": counter set \"" + consumption.getCounterSet()
                        + "\" referenced by device \"" + device.getName() + "\" not found");
            }
            for (String counter : consumption.getCounters().keySet()) {
                if (!counterSet.getCounters().containsKey(counter)) {
                    throw new IllegalArgumentException("pool \"" + pool + "\": counter \"" + counter
                            + "\" referenced by device \""
                            + device.getName() + "\" not found in counter set \"" + counterSet.getName() + "\"");
                }
            }
        }
    }
}
