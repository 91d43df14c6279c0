package io.kdra.allocator;

import java.util.Objects;

/** Identifies a device cluster-wide: driver, pool name and device name. Prints as {@code driver/pool/device}. */
public record DeviceId(String driver, String pool, String device) {

    public DeviceId {
        Objects.requireNonNull(driver, "driver");
        Objects.requireNonNull(pool, "pool");
        Objects.requireNonNull(device, "device");
    }

    @Override
    public String toString() {
        return driver + "/" + pool + "/" + device;
    }
}
