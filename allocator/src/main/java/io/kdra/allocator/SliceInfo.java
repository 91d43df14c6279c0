package io.kdra.allocator;

import io.fabric8.kubernetes.api.model.NodeSelector;
import io.fabric8.kubernetes.api.model.resource.v1.Counter;
import io.fabric8.kubernetes.api.model.resource.v1.CounterSet;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceTaint;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceSpec;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;

/** One ResourceSlice with its devices prepared; part of an {@link Inventory}. */
final class SliceInfo {

    /** A shared counter set of the slice with exact values. */
    record CounterSetInfo(String name, Map<String, BigDecimal> counters) {}

    final String name;
    final String driver;
    final String poolName;
    final PoolId poolId;
    final long generation;
    final long sliceCount;

    final String nodeName;
    final boolean allNodes;
    final NodeSelector nodeSelector;
    /** The field is present (true or false); upstream skips such slices without partitionable devices. */
    final boolean perDeviceNodeSelectionSet;

    final boolean perDeviceNodeSelection;
    /** The slice's devices as published, for checks that need no preparation. */
    final List<Device> publishedDevices;

    private final boolean hasCounterSets;
    private final ResourceSliceSpec spec;
    final List<String> skipNodeOperations;
    private final int firstIndex;
    private final BiFunction<SliceInfo, Device, List<DeviceTaint>> ruleTaints;
    /** Devices and counters are prepared when a node first needs the slice. */
    private volatile Prepared prepared;

    /** The slice's counter sets and devices, or why they cannot be used. */
    private record Prepared(List<CounterSetInfo> counterSets, List<DeviceInfo> devices, String invalidReason) {}

    /**
     * @param firstIndex inventory index of the first device
     * @param ruleTaints the DeviceTaintRule taints that apply to a device of this slice
     * @throws IllegalArgumentException when the slice lacks its driver or pool
     */
    SliceInfo(ResourceSlice slice, int firstIndex, BiFunction<SliceInfo, Device, List<DeviceTaint>> ruleTaints) {
        this.spec = slice.getSpec();
        this.skipNodeOperations = spec == null ? List.of() : List.copyOf(DeviceInfo.orEmpty(spec.getSkipNodeOperations()));
        this.name = slice.getMetadata() == null || slice.getMetadata().getName() == null
                ? "" : slice.getMetadata().getName();
        if (spec == null || spec.getDriver() == null || spec.getDriver().isEmpty()) {
            throw new IllegalArgumentException("ResourceSlice " + name + ": spec.driver is missing");
        }
        if (spec.getPool() == null || spec.getPool().getName() == null || spec.getPool().getName().isEmpty()) {
            throw new IllegalArgumentException("ResourceSlice " + name + ": spec.pool.name is missing");
        }
        if (spec.getPool().getResourceSliceCount() == null || spec.getPool().getResourceSliceCount() <= 0) {
            throw new IllegalArgumentException(
                    "ResourceSlice " + name + ": spec.pool.resourceSliceCount must be greater than zero");
        }
        this.driver = spec.getDriver();
        this.poolName = spec.getPool().getName();
        this.poolId = new PoolId(driver, poolName);
        this.generation = spec.getPool().getGeneration() == null ? 0 : spec.getPool().getGeneration();
        this.sliceCount = spec.getPool().getResourceSliceCount();
        this.nodeName = DeviceInfo.emptyToNull(spec.getNodeName());
        this.allNodes = Boolean.TRUE.equals(spec.getAllNodes());
        this.nodeSelector = spec.getNodeSelector();
        this.perDeviceNodeSelectionSet = spec.getPerDeviceNodeSelection() != null;
        this.perDeviceNodeSelection = Boolean.TRUE.equals(spec.getPerDeviceNodeSelection());
        this.publishedDevices = DeviceInfo.orEmpty(spec.getDevices());
        this.hasCounterSets = !DeviceInfo.orEmpty(spec.getSharedCounters()).isEmpty();
        this.firstIndex = firstIndex;
        this.ruleTaints = ruleTaints;
    }

    boolean hasCounterSets() {
        return hasCounterSets;
    }

    List<CounterSetInfo> counterSets() {
        return prepared().counterSets();
    }

    List<DeviceInfo> devices() {
        return prepared().devices();
    }

    /** Why the slice's pool cannot be used (a malformed quantity), or null. */
    String invalidReason() {
        return prepared().invalidReason();
    }

    private Prepared prepared() {
        Prepared result = prepared;
        if (result == null) {
            synchronized (this) {
                result = prepared;
                if (result == null) {
                    result = prepare();
                    prepared = result;
                }
            }
        }
        return result;
    }

    private Prepared prepare() {
        List<CounterSetInfo> sets = new ArrayList<>();
        List<DeviceInfo> devices = new ArrayList<>();
        try {
            for (CounterSet set : DeviceInfo.orEmpty(spec.getSharedCounters())) {
                sets.add(counterSetOf(set));
            }
            for (Device device : publishedDevices) {
                devices.add(new DeviceInfo(firstIndex + devices.size(), this, device, ruleTaints.apply(this, device)));
            }
        } catch (IllegalArgumentException e) {
            return new Prepared(List.of(), List.of(), "ResourceSlice " + name + ": " + e.getMessage());
        }
        return new Prepared(List.copyOf(sets), List.copyOf(devices), null);
    }

    private CounterSetInfo counterSetOf(CounterSet set) {
        Map<String, BigDecimal> counters = new LinkedHashMap<>();
        if (set.getCounters() != null) {
            for (Map.Entry<String, Counter> counter : set.getCounters().entrySet()) {
                counters.put(counter.getKey(), Quantities.amountOf(
                        counter.getValue() == null ? null : counter.getValue().getValue(),
                        () -> "sharedCounters " + set.getName() + "/" + counter.getKey()));
            }
        }
        return new CounterSetInfo(set.getName(), Map.copyOf(counters));
    }
}
