package io.kdra.cluster.kubelet;

import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The DRA manager's entry for one ResourceClaim on the node (upstream {@code ClaimInfo}): the pods using it, the
 * devices each driver reported, and whether the claim is prepared. Guarded by the manager's lock.
 */
final class ClaimInfo {

    final String claimUid;
    final String claimName;
    final String namespace;
    final Set<String> podUids = new TreeSet<>();
    /** Every driver with allocation results in the claim, with the devices it reported (maybe none). */
    final Map<String, List<Device>> driverState = new TreeMap<>();
    /**
     * Per driver, the node operations ({@link #NODE_PREPARE_RESOURCES}, {@link #NODE_UNPREPARE_RESOURCES}) that every
     * device of the driver in the claim skips (gate DRAOptionalNodeOperations); drivers that skip nothing are absent.
     */
    final Map<String, Set<String>> skippedOperations = new TreeMap<>();
    boolean prepared;

    static final String NODE_PREPARE_RESOURCES = "NodePrepareResources";
    static final String NODE_UNPREPARE_RESOURCES = "NodeUnprepareResources";
    static final String ALL_NODE_OPERATIONS = "*";

    /** A device as a driver described it in NodePrepareResources. */
    record Device(String poolName, String deviceName, String shareId, List<String> requestNames,
            List<String> cdiDeviceIds) {
        Device {
            requestNames = List.copyOf(requestNames);
            cdiDeviceIds = List.copyOf(cdiDeviceIds);
        }
    }

    ClaimInfo(String claimUid, String claimName, String namespace) {
        this.claimUid = claimUid;
        this.claimName = claimName;
        this.namespace = namespace;
    }

    /**
     * The CDI IDs a container gets for a {@code resources.claims} entry: every device of the claim when the entry
     * names no request, else the devices whose request names are empty or contain it ({@code cdiDevicesAsList}).
     */
    List<String> cdiDevices(String request) {
        List<String> ids = new ArrayList<>();
        for (List<Device> devices : driverState.values()) {
            for (Device device : devices) {
                if (request == null || request.isEmpty() || device.requestNames().isEmpty()
                        || device.requestNames().contains(request)) {
                    ids.addAll(device.cdiDeviceIds());
                }
            }
        }
        return ids;
    }

    boolean skips(String driver, String operation) {
        return skippedOperations.getOrDefault(driver, Set.of()).contains(operation);
    }

    /**
     * The operations each device's result lists, {@code *} standing for both, intersected over the driver's devices;
     * unknown values are ignored, as the kubelet must.
     */
    static Map<String, Set<String>> skippedOperations(List<DeviceRequestAllocationResult> results) {
        Map<String, Set<String>> byDriver = new TreeMap<>();
        for (DeviceRequestAllocationResult result : results) {
            Set<String> skipped = new TreeSet<>();
            for (String operation : result.getSkipNodeOperations()) {
                if (operation.equals(ALL_NODE_OPERATIONS)) {
                    skipped.add(NODE_PREPARE_RESOURCES);
                    skipped.add(NODE_UNPREPARE_RESOURCES);
                } else if (operation.equals(NODE_PREPARE_RESOURCES) || operation.equals(NODE_UNPREPARE_RESOURCES)) {
                    skipped.add(operation);
                }
            }
            byDriver.merge(result.getDriver(), skipped, (known, more) -> {
                known.retainAll(more);
                return known;
            });
        }
        byDriver.values().removeIf(Set::isEmpty);
        return byDriver;
    }

    String key() {
        return key(namespace, claimName);
    }

    static String key(String namespace, String claimName) {
        return namespace + "/" + claimName;
    }
}
