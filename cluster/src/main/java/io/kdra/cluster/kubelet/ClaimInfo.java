package io.kdra.cluster.kubelet;

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
    boolean prepared;

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

    String key() {
        return key(namespace, claimName);
    }

    static String key(String namespace, String claimName) {
        return namespace + "/" + claimName;
    }
}
