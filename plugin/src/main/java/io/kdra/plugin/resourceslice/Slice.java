package io.kdra.plugin.resourceslice;

import io.fabric8.kubernetes.api.model.resource.v1.CounterSet;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import java.util.List;

/**
 * Devices and shared counters a driver wants published together. The publisher turns one {@code Slice} into as many
 * ResourceSlices as the API limits require: shared counters go into slices of their own (at most 8 counter sets each),
 * and devices are split into slices of at most 128 devices, or 64 when a slice contains a device with taints or
 * counter consumption. The order of slices and devices is kept; it is the allocator's order of preference.
 *
 * @param devices the devices, names unique within the pool
 * @param sharedCounters counter sets the pool's devices consume from, names unique within the pool
 */
public record Slice(List<Device> devices, List<CounterSet> sharedCounters) {

    /** Copies both lists; {@code null} means none. */
    public Slice {
        devices = devices == null ? List.of() : List.copyOf(devices);
        sharedCounters = sharedCounters == null ? List.of() : List.copyOf(sharedCounters);
    }

    /** A slice of devices without shared counters. */
    public static Slice ofDevices(List<Device> devices) {
        return new Slice(devices, List.of());
    }
}
