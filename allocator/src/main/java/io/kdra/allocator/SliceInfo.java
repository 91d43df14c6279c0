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
    final List<CounterSetInfo> counterSets;
    final List<DeviceInfo> devices;
    /** Why the slice's pool cannot be used (a malformed quantity), or null. */
    final String invalidReason;

    /**
     * @param firstIndex inventory index of the first device
     * @param ruleTaints the DeviceTaintRule taints that apply to a device of this slice
     * @throws IllegalArgumentException when the slice lacks its driver or pool
     */
    SliceInfo(ResourceSlice slice, int firstIndex, BiFunction<SliceInfo, Device, List<DeviceTaint>> ruleTaints) {
        ResourceSliceSpec spec = slice.getSpec();
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

        String invalid = null;
        List<CounterSetInfo> sets = new ArrayList<>();
        List<DeviceInfo> prepared = new ArrayList<>();
        try {
            for (CounterSet set : DeviceInfo.orEmpty(spec.getSharedCounters())) {
                sets.add(counterSetOf(set));
            }
            for (Device device : DeviceInfo.orEmpty(spec.getDevices())) {
                prepared.add(new DeviceInfo(firstIndex + prepared.size(), this, device, ruleTaints.apply(this, device)));
            }
        } catch (IllegalArgumentException e) {
            invalid = "ResourceSlice " + name + ": " + e.getMessage();
            prepared.clear();
        }
        this.counterSets = List.copyOf(sets);
        this.devices = List.copyOf(prepared);
        this.invalidReason = invalid;
    }

    boolean hasCounterSets() {
        return !counterSets.isEmpty();
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
