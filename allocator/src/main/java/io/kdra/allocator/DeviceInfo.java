package io.kdra.allocator;

import io.fabric8.kubernetes.api.model.NodeSelector;
import io.fabric8.kubernetes.api.model.resource.v1.Counter;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttribute;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacity;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCounterConsumption;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceTaint;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/** Everything the allocator needs about one published device, computed once per {@link Inventory}. */
final class DeviceInfo {

    /** Position in the inventory; indexes per-device caches. */
    final int index;

    final DeviceId id;
    final Device device;
    final SliceInfo slice;
    /** Scalar attributes by fully qualified name; names without a domain belong to the driver. */
    final Map<String, AttributeValue> attributes;
    /** The device's own taints followed by those of matching DeviceTaintRules. */
    final List<DeviceTaint> taints;

    final List<CounterUse> counterUses;
    /** The compatibility groups the device declares per counter set it consumes from; sets without groups are absent. */
    final Map<String, Set<String>> compatibilityGroups;
    /** Capacities by fully qualified name, sorted by name. */
    final Map<String, CapacityInfo> capacity;

    final boolean multipleAllocations;
    final boolean bindsToNode;
    final boolean hasBindingConditions;
    /** {@code spec.skipNodeOperations} of the device's slice. */
    final List<String> skipNodeOperations;

    /**
     * @throws IllegalArgumentException when a capacity or counter quantity is malformed
     */
    DeviceInfo(int index, SliceInfo slice, Device device, List<DeviceTaint> ruleTaints) {
        this.index = index;
        this.slice = slice;
        this.device = device;
        this.id = new DeviceId(slice.driver, slice.poolName, device.getName());
        this.attributes = attributesOf(device, slice.driver);
        List<DeviceTaint> allTaints = new ArrayList<>(orEmpty(device.getTaints()));
        allTaints.addAll(ruleTaints);
        this.taints = List.copyOf(allTaints);
        this.counterUses = counterUsesOf(device);
        this.compatibilityGroups = compatibilityGroupsOf(device);
        this.capacity = capacityOf(device, slice.driver);
        this.multipleAllocations = Boolean.TRUE.equals(device.getAllowMultipleAllocations());
        this.bindsToNode = Boolean.TRUE.equals(device.getBindsToNode());
        this.hasBindingConditions = !orEmpty(device.getBindingConditions()).isEmpty();
        this.skipNodeOperations = slice.skipNodeOperations;
    }

    /**
     * Looks an attribute up as upstream does: by its fully qualified name, which for the driver's own domain also
     * finds the attribute published without a domain. A name without a domain only finds the literal key.
     */
    AttributeValue attribute(String name) {
        if (name.indexOf('/') < 0) {
            DeviceAttribute literal = device.getAttributes() == null ? null : device.getAttributes().get(name);
            return literal == null ? null : AttributeValue.of(literal);
        }
        return attributes.get(name);
    }

    /** Node selection of a device in a slice with perDeviceNodeSelection. */
    String nodeName() {
        return emptyToNull(device.getNodeName());
    }

    boolean allNodes() {
        return Boolean.TRUE.equals(device.getAllNodes());
    }

    NodeSelector nodeSelector() {
        return device.getNodeSelector();
    }

    @Override
    public String toString() {
        return id.toString();
    }

    private static Map<String, AttributeValue> attributesOf(Device device, String driver) {
        Map<String, AttributeValue> result = new HashMap<>();
        if (device.getAttributes() == null) {
            return result;
        }
        // Explicitly qualified names win over the same name published without a domain.
        for (boolean qualified : new boolean[] {false, true}) {
            for (Map.Entry<String, DeviceAttribute> entry : device.getAttributes().entrySet()) {
                AttributeValue value = entry.getValue() == null ? null : AttributeValue.of(entry.getValue());
                if (value != null && (entry.getKey().indexOf('/') >= 0) == qualified) {
                    result.put(Names.qualify(entry.getKey(), driver), value);
                }
            }
        }
        return result;
    }

    private List<CounterUse> counterUsesOf(Device device) {
        List<CounterUse> uses = new ArrayList<>();
        for (DeviceCounterConsumption consumption : orEmpty(device.getConsumesCounters())) {
            if (consumption.getCounters() == null) {
                continue;
            }
            for (Map.Entry<String, Counter> counter : consumption.getCounters().entrySet()) {
                uses.add(new CounterUse(consumption.getCounterSet(), counter.getKey(),
                        Quantities.amountOf(counter.getValue() == null ? null : counter.getValue().getValue(),
                                () -> "device " + id + ": consumesCounters " + consumption.getCounterSet() + "/"
                                        + counter.getKey())));
            }
        }
        return List.copyOf(uses);
    }

    private static Map<String, Set<String>> compatibilityGroupsOf(Device device) {
        Map<String, Set<String>> groups = new HashMap<>();
        for (DeviceCounterConsumption consumption : orEmpty(device.getConsumesCounters())) {
            List<String> declared = orEmpty(consumption.getCompatibilityGroups());
            if (!declared.isEmpty()) {
                groups.computeIfAbsent(consumption.getCounterSet(), set -> new HashSet<>()).addAll(declared);
            }
        }
        return Map.copyOf(groups);
    }

    private Map<String, CapacityInfo> capacityOf(Device device, String driver) {
        Map<String, CapacityInfo> result = new TreeMap<>();
        if (device.getCapacity() == null) {
            return result;
        }
        // As for attributes, a name qualified with the driver's domain wins over the same name without a domain.
        for (boolean qualified : new boolean[] {false, true}) {
            for (Map.Entry<String, DeviceCapacity> entry : device.getCapacity().entrySet()) {
                if ((entry.getKey().indexOf('/') >= 0) == qualified && entry.getValue() != null) {
                    result.put(Names.qualify(entry.getKey(), driver), CapacityInfo.of(entry.getKey(),
                            entry.getValue(), () -> "device " + id + ": capacity " + entry.getKey()));
                }
            }
        }
        return result;
    }

    static <T> List<T> orEmpty(List<T> list) {
        return list == null ? List.of() : list;
    }

    static String emptyToNull(String value) {
        return value == null || value.isEmpty() ? null : value;
    }
}
