package io.kdra.allocator;

import io.kdra.kube.FeatureGates;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The Kubernetes feature gates that change how devices are allocated. {@link #KUBERNETES_1_34} holds the defaults of
 * Kubernetes 1.34; {@link #withGate(String, boolean)} switches one gate by its Kubernetes name.
 *
 * @param adminAccess DRAAdminAccess: requests may ask for admin access to devices that are in use
 * @param prioritizedList DRAPrioritizedList: requests may list alternatives in {@code firstAvailable}
 * @param deviceTaints DRADeviceTaints: taints on devices block allocation unless tolerated
 * @param deviceTaintRules DRADeviceTaintRules: DeviceTaintRules add taints to devices (needs deviceTaints too; in
 *     Kubernetes 1.34 both were covered by DRADeviceTaints)
 * @param partitionableDevices DRAPartitionableDevices: shared counters, consumesCounters, perDeviceNodeSelection
 * @param consumableCapacity DRAConsumableCapacity: devices that allow multiple allocations, capacity requests and
 *     distinctAttribute constraints
 * @param deviceBindingConditions DRADeviceBindingConditions: devices with binding conditions may be allocated
 *     (together with resourceClaimDeviceStatus)
 * @param resourceClaimDeviceStatus DRAResourceClaimDeviceStatus: needed by binding conditions
 * @param deviceCompatibilityGroups DRADeviceCompatibilityGroups: devices drawing from the same counter set are
 *     allocated together only when the compatibility groups of their consumptions intersect (needs
 *     partitionableDevices too)
 * @param optionalNodeOperations DRAOptionalNodeOperations: devices of slices that list {@code skipNodeOperations}
 *     are allocatable, and the list is copied into their results; without it such devices are not allocated
 */
public record AllocatorFeatures(
        boolean adminAccess,
        boolean prioritizedList,
        boolean deviceTaints,
        boolean deviceTaintRules,
        boolean partitionableDevices,
        boolean consumableCapacity,
        boolean deviceBindingConditions,
        boolean resourceClaimDeviceStatus,
        boolean deviceCompatibilityGroups,
        boolean optionalNodeOperations) {

    /** Kubernetes 1.34 defaults: the beta gates AdminAccess, PrioritizedList and ResourceClaimDeviceStatus are on. */
    public static final AllocatorFeatures KUBERNETES_1_34 =
            new AllocatorFeatures(true, true, false, false, false, false, false, true, false, false);

    /** Every allocation feature on. */
    public static final AllocatorFeatures ALL = new AllocatorFeatures(true, true, true, true, true, true, true, true, true, true);

    /** The allocation features of a cluster's feature gates. */
    public static AllocatorFeatures from(FeatureGates gates) {
        return new AllocatorFeatures(
                gates.enabled(FeatureGates.DRA_ADMIN_ACCESS),
                gates.enabled(FeatureGates.DRA_PRIORITIZED_LIST),
                gates.enabled(FeatureGates.DRA_DEVICE_TAINTS),
                gates.enabled(FeatureGates.DRA_DEVICE_TAINT_RULES),
                gates.enabled(FeatureGates.DRA_PARTITIONABLE_DEVICES),
                gates.enabled(FeatureGates.DRA_CONSUMABLE_CAPACITY),
                gates.enabled(FeatureGates.DRA_DEVICE_BINDING_CONDITIONS),
                gates.enabled(FeatureGates.DRA_RESOURCE_CLAIM_DEVICE_STATUS),
                gates.enabled(FeatureGates.DRA_DEVICE_COMPATIBILITY_GROUPS),
                gates.enabled(FeatureGates.DRA_OPTIONAL_NODE_OPERATIONS));
    }

    private static final List<String> GATES = List.of(
            "DRAAdminAccess",
            "DRAPrioritizedList",
            "DRADeviceTaints",
            "DRADeviceTaintRules",
            "DRAPartitionableDevices",
            "DRAConsumableCapacity",
            "DRADeviceBindingConditions",
            "DRAResourceClaimDeviceStatus",
            "DRADeviceCompatibilityGroups",
            "DRAOptionalNodeOperations");

    /** The Kubernetes names of the gates this record models, in component order. */
    public static List<String> gateNames() {
        return GATES;
    }

    /**
     * Returns a copy with one gate switched.
     *
     * @throws IllegalArgumentException when {@code gate} is not one of {@link #gateNames()}
     */
    public AllocatorFeatures withGate(String gate, boolean enabled) {
        boolean[] values = values();
        int index = GATES.indexOf(gate);
        if (index < 0) {
            throw new IllegalArgumentException(
                    "unknown DRA feature gate \"" + gate + "\"; known gates: " + String.join(", ", GATES));
        }
        values[index] = enabled;
        return new AllocatorFeatures(
                values[0], values[1], values[2], values[3], values[4], values[5], values[6], values[7], values[8],
                values[9]);
    }

    /** The Kubernetes names of the gates that are on. */
    public Set<String> enabledGates() {
        boolean[] values = values();
        Set<String> enabled = new LinkedHashSet<>();
        for (int i = 0; i < values.length; i++) {
            if (values[i]) {
                enabled.add(GATES.get(i));
            }
        }
        return enabled;
    }

    /** Devices with binding conditions are usable only when both binding gates are on, as upstream. */
    boolean bindingConditions() {
        return deviceBindingConditions && resourceClaimDeviceStatus;
    }

    /** Compatibility groups live on counter consumptions, so they apply only with partitionable devices. */
    boolean compatibilityGroups() {
        return partitionableDevices && deviceCompatibilityGroups;
    }

    /** DeviceTaintRules apply only when device taints are on as well. */
    boolean taintRules() {
        return deviceTaints && deviceTaintRules;
    }

    private boolean[] values() {
        return new boolean[] {
            adminAccess,
            prioritizedList,
            deviceTaints,
            deviceTaintRules,
            partitionableDevices,
            consumableCapacity,
            deviceBindingConditions,
            resourceClaimDeviceStatus,
            deviceCompatibilityGroups,
            optionalNodeOperations
        };
    }
}
