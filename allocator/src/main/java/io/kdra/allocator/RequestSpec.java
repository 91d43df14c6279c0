package io.kdra.allocator;

import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceSelector;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceToleration;
import io.kdra.allocator.cel.CompiledSelector;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** One request without subrequests, or one subrequest, ready for the search of one allocation call. */
final class RequestSpec {

    /** The request's or subrequest's own name. */
    final String name;
    /** The request that holds this subrequest, or null. */
    final String parentName;
    /** {@code req} or {@code req/sub}, as results and configs name it. */
    final String resultName;

    final String className;
    final DeviceClass deviceClass;
    final List<DeviceSelector> selectors;
    final boolean allDevicesMode;
    final boolean adminAccess;
    final List<DeviceToleration> tolerations;
    /** Requested capacity by fully qualified name (names without a domain belong to the device's driver). */
    final Map<String, CapacityInfo.Amount> capacityRequests;

    /** Devices needed: the count, or for All mode the number of matching devices. */
    int numDevices;
    /** All mode: the devices to take. */
    List<DeviceInfo> allDevices = List.of();

    /** Whether the search went through all candidates for this request at least once. */
    boolean searched;

    /** Selector and node match per device for this call. */
    final Map<DeviceInfo, Boolean> selectable = new HashMap<>();

    CompiledSelector[] compiledClassSelectors;
    CompiledSelector[] compiledSelectors;

    RequestSpec(String name, String parentName, String className, DeviceClass deviceClass,
            List<DeviceSelector> selectors, boolean allDevicesMode, int count, boolean adminAccess,
            List<DeviceToleration> tolerations, Map<String, CapacityInfo.Amount> capacityRequests) {
        this.name = name;
        this.parentName = parentName;
        this.resultName = parentName == null ? name : parentName + "/" + name;
        this.className = className;
        this.deviceClass = deviceClass;
        this.selectors = selectors;
        this.allDevicesMode = allDevicesMode;
        this.numDevices = count;
        this.adminAccess = adminAccess;
        this.tolerations = tolerations;
        this.capacityRequests = capacityRequests;
    }

    List<DeviceSelector> classSelectors() {
        return deviceClass.getSpec() == null ? List.of() : DeviceInfo.orEmpty(deviceClass.getSpec().getSelectors());
    }
}
