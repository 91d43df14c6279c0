package io.kdra.plugin.resourceslice;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.CounterBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.CounterSet;
import io.fabric8.kubernetes.api.model.resource.v1.CounterSetBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCounterConsumptionBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceTaintBuilder;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

/** Devices and counter sets for publisher tests. */
public final class Devices {

    private Devices() {
    }

    /** {@code device-00}, {@code device-01}, ... as the upstream test driver names them. */
    public static List<Device> plain(int count) {
        return IntStream.range(0, count).mapToObj(i -> device(String.format("device-%02d", i))).toList();
    }

    static Device device(String name) {
        return new DeviceBuilder().withName(name).build();
    }

    static Device tainted(String name) {
        return new DeviceBuilder().withName(name)
                .withTaints(new DeviceTaintBuilder().withKey("example.com/broken").withEffect("NoSchedule").build())
                .build();
    }

    static Device consuming(String name, String counterSet, String counter) {
        return new DeviceBuilder().withName(name)
                .withConsumesCounters(new DeviceCounterConsumptionBuilder().withCounterSet(counterSet)
                        .withCounters(Map.of(counter, new CounterBuilder().withValue(new Quantity("1Gi")).build()))
                        .build())
                .build();
    }

    static CounterSet counterSet(String name, String counter) {
        return new CounterSetBuilder().withName(name)
                .withCounters(Map.of(counter, new CounterBuilder().withValue(new Quantity("8Gi")).build()))
                .build();
    }
}
