package io.kdra.allocator;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The shared counters of one pool during one allocation call: the published values minus what allocated devices
 * consume, minus what the devices picked so far consume. A counter below zero means no device that consumes counters
 * from the pool fits, as upstream. With compatibility groups, it also knows the groups of every device that draws
 * from each counter set: a device declaring groups for a set fits only if they intersect those of every consumer of
 * that set that declares groups too (a consumption without groups restricts nothing).
 */
final class CounterState {

    private final Map<String, Map<String, BigDecimal>> remaining = new HashMap<>();
    /** Per counter set, the declared groups of each device drawing from it, one entry per device. */
    private final Map<String, List<Set<String>>> consumerGroups = new HashMap<>();
    private final boolean compatibilityGroups;
    private int negativeCounters;

    CounterState(NodePool pool, AllocatedState allocated, boolean compatibilityGroups) {
        this.compatibilityGroups = compatibilityGroups;
        pool.counterSets().forEach((set, counters) -> remaining.put(set, new HashMap<>(counters)));
        for (List<SliceInfo> slices : List.of(pool.deviceSlices(), pool.otherSlices())) {
            for (SliceInfo slice : slices) {
                for (DeviceInfo device : slice.devices()) {
                    if (allocated.isAllocated(device.id)) {
                        change(device, -1);
                        addGroups(device);
                    }
                }
            }
        }
    }

    boolean tryConsume(DeviceInfo device) {
        if (!isCompatible(device)) {
            return false;
        }
        change(device, -1);
        if (negativeCounters > 0) {
            change(device, 1);
            return false;
        }
        addGroups(device);
        return true;
    }

    void release(DeviceInfo device) {
        change(device, 1);
        if (compatibilityGroups) {
            device.compatibilityGroups.forEach((set, groups) -> consumerGroups.get(set).remove(groups));
        }
    }

    private boolean isCompatible(DeviceInfo device) {
        if (!compatibilityGroups) {
            return true;
        }
        for (Map.Entry<String, Set<String>> own : device.compatibilityGroups.entrySet()) {
            for (Set<String> other : consumerGroups.getOrDefault(own.getKey(), List.of())) {
                if (Collections.disjoint(own.getValue(), other)) {
                    return false;
                }
            }
        }
        return true;
    }

    private void addGroups(DeviceInfo device) {
        if (compatibilityGroups) {
            device.compatibilityGroups.forEach((set, groups) ->
                    consumerGroups.computeIfAbsent(set, name -> new ArrayList<>()).add(groups));
        }
    }

    private void change(DeviceInfo device, int sign) {
        for (CounterUse use : device.counterUses) {
            Map<String, BigDecimal> set = remaining.get(use.counterSet());
            BigDecimal before = set == null ? null : set.get(use.counter());
            if (before == null) {
                continue;
            }
            BigDecimal after = sign < 0 ? before.subtract(use.amount()) : before.add(use.amount());
            set.put(use.counter(), after);
            if (before.signum() >= 0 && after.signum() < 0) {
                negativeCounters++;
            } else if (before.signum() < 0 && after.signum() >= 0) {
                negativeCounters--;
            }
        }
    }
}
