package io.kdra.allocator;

import java.math.BigDecimal;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The shared counters of one pool during one allocation call: the published values minus what allocated devices
 * consume, minus what the devices picked so far consume. A counter below zero means no device that consumes counters
 * from the pool fits, as upstream.
 */
final class CounterState {

    private final Map<String, Map<String, BigDecimal>> remaining = new HashMap<>();
    private int negativeCounters;

    CounterState(NodePool pool, AllocatedState allocated) {
        pool.counterSets().forEach((set, counters) -> remaining.put(set, new HashMap<>(counters)));
        for (List<SliceInfo> slices : List.of(pool.deviceSlices(), pool.otherSlices())) {
            for (SliceInfo slice : slices) {
                for (DeviceInfo device : slice.devices()) {
                    if (allocated.isAllocated(device.id)) {
                        change(device, -1);
                    }
                }
            }
        }
    }

    boolean tryConsume(DeviceInfo device) {
        change(device, -1);
        if (negativeCounters > 0) {
            change(device, 1);
            return false;
        }
        return true;
    }

    void release(DeviceInfo device) {
        change(device, 1);
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
