package io.kdra.plugin;

import java.util.List;

/**
 * The outcome of preparing one claim: its devices, or an error that makes the kubelet retry this claim later (the
 * devices are then ignored).
 *
 * @param devices the prepared devices; may be empty
 * @param error why preparation failed, or {@code null} on success
 */
public record PrepareResult(List<PreparedDevice> devices, String error) {

    /** Copies the device list. */
    public PrepareResult {
        devices = List.copyOf(devices);
    }

    /** A successful preparation. */
    public static PrepareResult prepared(List<PreparedDevice> devices) {
        return new PrepareResult(devices, null);
    }

    /** A failed preparation with its reason. */
    public static PrepareResult failed(String error) {
        return new PrepareResult(List.of(), error);
    }

    /** Whether preparation failed. */
    public boolean isFailed() {
        return error != null;
    }
}
