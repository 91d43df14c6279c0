package io.kdra.cluster.runtime.cdi;

import java.util.List;

/** Some requested CDI devices are not defined by any valid spec file, or by more than one. */
public final class UnresolvableCdiDevicesException extends Exception {

    private final List<String> devices;

    UnresolvableCdiDevicesException(List<String> devices) {
        // the CDI reference library's words, which containerd passes on
        super("unresolvable CDI devices " + String.join(", ", devices));
        this.devices = List.copyOf(devices);
    }

    /** The device IDs that could not be resolved, in the order they were requested. */
    public List<String> devices() {
        return devices;
    }
}
