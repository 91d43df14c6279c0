package io.kdra.plugin.resourceslice;

import io.fabric8.kubernetes.api.model.resource.v1.CounterSet;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import java.util.ArrayList;
import java.util.List;

/**
 * Splits a pool's slices at the ResourceSlice API limits. Each resulting {@link Content} becomes one ResourceSlice;
 * its index in the returned list is its index in the pool.
 */
final class SliceLayout {

    /** Devices per ResourceSlice. */
    static final int MAX_DEVICES = 128;
    /** Devices per ResourceSlice when any of them has taints or consumes counters. */
    static final int MAX_DEVICES_WITH_TAINTS_OR_COUNTERS = 64;
    /** Shared counter sets per ResourceSlice. */
    static final int MAX_COUNTER_SETS = 8;

    /** What one ResourceSlice carries besides the pool-wide fields; since 1.35 never both. */
    record Content(List<Device> devices, List<CounterSet> sharedCounters) {
    }

    private SliceLayout() {
    }

    static List<Content> of(Pool pool) {
        List<Content> contents = new ArrayList<>();
        for (Slice slice : pool.slices()) {
            for (int start = 0; start < slice.sharedCounters().size(); start += MAX_COUNTER_SETS) {
                int end = Math.min(start + MAX_COUNTER_SETS, slice.sharedCounters().size());
                contents.add(new Content(List.of(), List.copyOf(slice.sharedCounters().subList(start, end))));
            }
            if (slice.devices().isEmpty() && slice.sharedCounters().isEmpty()) {
                contents.add(new Content(List.of(), List.of()));
            }
            splitDevices(slice.devices(), contents);
        }
        if (contents.isEmpty()) {
            contents.add(new Content(List.of(), List.of()));
        }
        return contents;
    }

    /** Fills each slice as far as the limit allows, keeping the device order. */
    private static void splitDevices(List<Device> devices, List<Content> contents) {
        List<Device> current = new ArrayList<>();
        boolean currentIsLimited = false;
        for (Device device : devices) {
            boolean limited = currentIsLimited || hasTaintsOrCounters(device);
            int limit = limited ? MAX_DEVICES_WITH_TAINTS_OR_COUNTERS : MAX_DEVICES;
            if (current.size() >= limit) {
                contents.add(new Content(List.copyOf(current), List.of()));
                current.clear();
                limited = hasTaintsOrCounters(device);
            }
            current.add(device);
            currentIsLimited = limited;
        }
        if (!current.isEmpty()) {
            contents.add(new Content(List.copyOf(current), List.of()));
        }
    }

    private static boolean hasTaintsOrCounters(Device device) {
        return !device.getTaints().isEmpty() || !device.getConsumesCounters().isEmpty();
    }
}
