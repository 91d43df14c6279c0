package io.kdra.plugin.resourceslice;

import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToIntFunction;

/**
 * Reported through {@link ResourceSlicePublisher.ErrorHandler} when the API server stored a ResourceSlice without
 * some of the fields the driver asked for, usually because a feature gate is off. The publisher then treats the stored
 * form as desired, so it does not rewrite the slice forever.
 */
public final class DroppedFieldsException extends Exception {

    private static final long serialVersionUID = 1L;

    private final String poolName;
    private final int sliceIndex;
    private final transient List<String> disabledFeatures;

    DroppedFieldsException(String poolName, int sliceIndex, ResourceSliceSpec desired, ResourceSliceSpec stored) {
        this(poolName, sliceIndex, guessDisabledFeatures(desired, stored));
    }

    private DroppedFieldsException(String poolName, int sliceIndex, List<String> disabledFeatures) {
        super("pool \"" + poolName + "\", slice #" + sliceIndex + ": some fields were dropped by the apiserver, "
                + "probably because these features are disabled: " + String.join(" ", disabledFeatures));
        this.poolName = poolName;
        this.sliceIndex = sliceIndex;
        this.disabledFeatures = disabledFeatures;
    }

    /** The pool of the slice. */
    public String poolName() {
        return poolName;
    }

    /** The index of the slice within its pool. */
    public int sliceIndex() {
        return sliceIndex;
    }

    /** Feature gates that are probably off, {@code [unknown]} if no known field went missing. */
    public List<String> disabledFeatures() {
        return disabledFeatures;
    }

    private static List<String> guessDisabledFeatures(ResourceSliceSpec desired, ResourceSliceSpec stored) {
        List<String> disabled = new ArrayList<>();
        if (anyDeviceLost(desired, stored, device -> device.getTaints().size())) {
            disabled.add("DRADeviceTaints");
        }
        if (Boolean.TRUE.equals(desired.getPerDeviceNodeSelection())
                && !Boolean.TRUE.equals(stored.getPerDeviceNodeSelection())
                || desired.getSharedCounters().size() > stored.getSharedCounters().size()
                || anyDeviceLost(desired, stored, device -> device.getConsumesCounters().size())) {
            disabled.add("DRAPartitionableDevices");
        }
        if (anyDeviceLost(desired, stored,
                device -> device.getBindingConditions().size() + device.getBindingFailureConditions().size())) {
            disabled.add("DRADeviceBindingConditions");
        }
        if (anyDeviceLost(desired, stored, device -> device.getAllowMultipleAllocations() == null ? 0 : 1)) {
            disabled.add("DRAConsumableCapacity");
        }
        return disabled.isEmpty() ? List.of("unknown") : List.copyOf(disabled);
    }

    /** Whether some device has less of something in the stored slice than in the desired one. */
    private static boolean anyDeviceLost(ResourceSliceSpec desired, ResourceSliceSpec stored,
            ToIntFunction<Device> amount) {
        List<Device> wanted = desired.getDevices();
        List<Device> got = stored.getDevices();
        for (int i = 0; i < Math.min(wanted.size(), got.size()); i++) {
            if (amount.applyAsInt(wanted.get(i)) > amount.applyAsInt(got.get(i))) {
                return true;
            }
        }
        return false;
    }
}
