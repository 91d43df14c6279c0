package io.kdra.allocator;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The pools that can serve one node and their devices in search order: pools, slices, devices. Immutable.
 *
 * @param pools gathered pools, including incomplete and invalid ones
 * @param candidates devices of the usable pools
 */
record NodeView(List<NodePool> pools, Map<PoolId, NodePool> poolsById, DeviceInfo[] candidates) {

    static NodeView of(List<NodePool> pools) {
        Map<PoolId, NodePool> byId = new HashMap<>();
        List<DeviceInfo> usable = new ArrayList<>();
        for (NodePool pool : pools) {
            byId.put(pool.id(), pool);
            if (pool.usable()) {
                for (SliceInfo slice : pool.deviceSlices()) {
                    usable.addAll(slice.devices());
                }
            }
        }
        return new NodeView(List.copyOf(pools), Map.copyOf(byId), usable.toArray(new DeviceInfo[0]));
    }
}
