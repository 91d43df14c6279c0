package io.kdra.allocator;

import java.math.BigDecimal;
import java.util.List;
import java.util.Map;

/**
 * A resource pool as seen from one node.
 *
 * @param incomplete not all slices of the pool's current generation are published
 * @param invalidReason why the pool cannot be used (duplicate device names, unknown counters...), or null
 * @param deviceSlices slices with devices that may serve the node, sorted by name
 * @param otherSlices the pool's other device slices; they matter for counters only
 * @param counterSets the pool's shared counters: counter set name → counter name → value
 */
record NodePool(
        PoolId id,
        boolean incomplete,
        String invalidReason,
        List<SliceInfo> deviceSlices,
        List<SliceInfo> otherSlices,
        Map<String, Map<String, BigDecimal>> counterSets) {

    static NodePool incomplete(PoolId id) {
        return new NodePool(id, true, null, List.of(), List.of(), Map.of());
    }

    static NodePool invalid(PoolId id, String reason) {
        return new NodePool(id, false, reason, List.of(), List.of(), Map.of());
    }

    boolean usable() {
        return !incomplete && invalidReason == null;
    }

    boolean hasBindingConditions() {
        for (SliceInfo slice : deviceSlices) {
            for (DeviceInfo device : slice.devices()) {
                if (device.hasBindingConditions) {
                    return true;
                }
            }
        }
        return false;
    }
}
