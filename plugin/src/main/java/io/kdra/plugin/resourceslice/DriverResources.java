package io.kdra.plugin.resourceslice;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * Everything a driver wants published: its pools by name. A pool that disappears from a later update gets its
 * ResourceSlices deleted.
 *
 * @param pools pools by name
 */
public record DriverResources(Map<String, Pool> pools) {

    /**
     * Copies the map (sorted by pool name) and checks every pool: unique device and counter set names, counter
     * references, at most one kind of node selection.
     *
     * @throws IllegalArgumentException naming the pool and the problem
     */
    public DriverResources {
        pools = Collections.unmodifiableMap(new TreeMap<>(pools));
        pools.forEach((name, pool) -> {
            if (name.isEmpty()) {
                throw new IllegalArgumentException("pool name must not be empty");
            }
            pool.validate(name);
        });
    }

    /** One pool. */
    public static DriverResources of(String poolName, Pool pool) {
        return new DriverResources(Map.of(poolName, pool));
    }
}
