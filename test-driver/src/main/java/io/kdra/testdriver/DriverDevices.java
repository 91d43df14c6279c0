package io.kdra.testdriver;

import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import java.util.List;
import java.util.stream.IntStream;

/** The devices the upstream test driver publishes for {@code --num-devices N}: {@code device-00}, {@code device-01}, ... */
public final class DriverDevices {

    private DriverDevices() {}

    /** The name of the device at {@code index}: two digits at least, as upstream's {@code device-%02d}. */
    public static String name(int index) {
        if (index < 0) {
            throw new IllegalArgumentException("device index must not be negative, got " + index);
        }
        return String.format("device-%02d", index);
    }

    /** {@code count} devices without attributes or capacity, named by {@link #name(int)}. */
    public static List<Device> numbered(int count) {
        if (count < 0) {
            throw new IllegalArgumentException("device count must not be negative, got " + count);
        }
        return IntStream.range(0, count).mapToObj(i -> new DeviceBuilder().withName(name(i)).build()).toList();
    }
}
