package io.kdra.apiserver.resource;

import io.kdra.kube.net.Cidr;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/** {@code validateResourceClaimStatusUpdate}: reservations, the allocation result and the devices' status. */
final class ClaimStatusChecks {

    /** {@code ResourceClaimReservedForMaxSize}. */
    static final int RESERVED_FOR_MAX = 256;
    /** {@code AllocationResultsMaxSize}. */
    static final int ALLOCATION_RESULTS_MAX = 32;
    /** Class configs plus claim configs: 2 x {@code DeviceConfigMaxSize}. */
    static final int ALLOCATION_CONFIGS_MAX = 2 * ConfigChecks.CONFIGS_MAX;
    /** {@code AllocatedDeviceStatusMaxConditions}. */
    static final int DEVICE_CONDITIONS_MAX = 8;
    /** {@code AllocatedDeviceStatusDataMaxLength}. */
    static final int DEVICE_DATA_MAX_LENGTH = 10 * 1024;
    /** {@code NetworkDeviceDataMaxIPs}, {@code ...InterfaceNameMaxLength}, {@code ...HardwareAddressMaxLength}. */
    static final int NETWORK_IPS_MAX = 16;
    static final int INTERFACE_NAME_MAX_LENGTH = 256;
    static final int HARDWARE_ADDRESS_MAX_LENGTH = 128;
    static final List<String> CONFIG_SOURCES = List.of("FromClaim", "FromClass");

    private ClaimStatusChecks() {
    }

    /**
     * @param deleted the claim has a deletionTimestamp: reservations may then only be removed
     */
    static void status(ValidationRun run, ObjectNode status, ObjectNode oldStatus, RequestNames requestNames,
                       boolean deleted) {
        FieldPath path = FieldPath.ROOT.child("status");
        List<JsonNode> reservedFor = run.items(status, "reservedFor", path);
        CollectionChecks.set(run, reservedFor, RESERVED_FOR_MAX, path.child("reservedFor"),
                (item, itemPath) -> consumerReference(run, run.struct(item, itemPath), itemPath),
                CollectionChecks.keyField("uid"));
        ObjectNode allocation = run.object(status, "allocation", path);
        Set<String> allocatedDevices = allocatedDevices(allocation);
        CollectionChecks.set(run, run.items(status, "devices", path), CollectionChecks.UNLIMITED,
                path.child("devices"),
                (item, itemPath) -> deviceStatus(run, run.struct(item, itemPath), itemPath, allocatedDevices),
                item -> JsonNodeFactory.instance.stringNode(sharedDeviceId(item)));
        if (!reservedFor.isEmpty()) {
            if (allocation == null) {
                run.add(FieldErrors.forbidden(path.child("reservedFor"),
                        "may not be specified when `allocated` is not set"));
            } else if (deleted && addsReservations(reservedFor, oldStatus)) {
                run.add(FieldErrors.forbidden(path.child("reservedFor"),
                        "new entries may not be added while `deallocationRequested` or `deletionTimestamp` are set"));
            }
        }
        JsonNode oldAllocation = ValidationRun.present(oldStatus, "allocation");
        if (oldAllocation != null && allocation != null) {
            if (!JsonNodes.semanticEquals(allocation, oldAllocation)) {
                run.add(FieldErrors.invalid(path.child("allocation"), allocation, "field is immutable"));
            }
        } else if (allocation != null) {
            allocationResult(run, allocation, path.child("allocation"), requestNames);
        }
    }

    private static boolean addsReservations(List<JsonNode> reservedFor, ObjectNode oldStatus) {
        Set<JsonNode> old = new HashSet<>();
        JsonNode oldReservedFor = JsonNodes.get(oldStatus, "reservedFor");
        if (oldReservedFor != null) {
            oldReservedFor.values().forEach(old::add);
        }
        return !old.containsAll(reservedFor);
    }

    private static void consumerReference(ValidationRun run, ObjectNode reference, FieldPath path) {
        run.string(reference, "apiGroup", path);
        for (String required : List.of("resource", "name", "uid")) {
            if (run.string(reference, required, path).isEmpty()) {
                run.add(FieldErrors.required(path.child(required), ""));
            }
        }
    }

    private static void allocationResult(ValidationRun run, ObjectNode allocation, FieldPath path,
                                         RequestNames requestNames) {
        ObjectNode devices = run.object(allocation, "devices", path);
        FieldPath devicesPath = path.child("devices");
        CollectionChecks.list(run, run.items(devices, "results", devicesPath), ALLOCATION_RESULTS_MAX,
                devicesPath.child("results"),
                (item, itemPath) -> requestResult(run, run.struct(item, itemPath), itemPath, requestNames));
        CollectionChecks.list(run, run.items(devices, "config", devicesPath), ALLOCATION_CONFIGS_MAX,
                devicesPath.child("config"),
                (item, itemPath) -> allocationConfig(run, run.struct(item, itemPath), itemPath, requestNames));
        ObjectNode nodeSelector = run.object(allocation, "nodeSelector", path);
        if (nodeSelector != null) {
            NodeSelectorChecks.nodeSelector(run, nodeSelector, path.child("nodeSelector"));
        }
    }

    private static void requestResult(ValidationRun run, ObjectNode result, FieldPath path,
                                      RequestNames requestNames) {
        requestNames.checkReference(run, run.string(result, "request", path), path.child("request"));
        FieldChecks.driverName(run, run.string(result, "driver", path), path.child("driver"));
        FieldChecks.poolName(run, run.string(result, "pool", path), path.child("pool"));
        FieldChecks.dnsLabel(run, run.string(result, "device", path), path.child("device"));
        BindingConditionChecks.bindingConditions(run, result, path);
        List<JsonNode> tolerations = run.items(result, "tolerations", path);
        for (int i = 0; i < tolerations.size(); i++) {
            FieldPath tolerationPath = path.child("tolerations").index(i);
            TaintChecks.toleration(run, run.struct(tolerations.get(i), tolerationPath), tolerationPath);
        }
        String shareId = run.stringPointer(result, "shareID", path);
        if (shareId != null) {
            FieldChecks.uid(run, shareId, path.child("shareID"));
        }
        run.boolPointer(result, "adminAccess", path);
        DeviceChecks.quantities(run, run.object(result, "consumedCapacity", path), path.child("consumedCapacity"));
    }

    private static void allocationConfig(ValidationRun run, ObjectNode config, FieldPath path,
                                         RequestNames requestNames) {
        String source = run.string(config, "source", path);
        if (source.isEmpty()) {
            run.add(FieldErrors.required(path.child("source"), ""));
        } else if (!CONFIG_SOURCES.contains(source)) {
            run.add(FieldErrors.notSupported(path.child("source"), source, CONFIG_SOURCES));
        }
        DeviceClaimChecks.requestReferences(run, config, path, requestNames);
        ConfigChecks.deviceConfiguration(run, config, path, false);
    }

    private static void deviceStatus(ValidationRun run, ObjectNode device, FieldPath path, Set<String> allocated) {
        FieldChecks.driverName(run, run.string(device, "driver", path), path.child("driver"));
        FieldChecks.poolName(run, run.string(device, "pool", path), path.child("pool"));
        FieldChecks.dnsLabel(run, run.string(device, "device", path), path.child("device"));
        String shareId = run.stringPointer(device, "shareID", path);
        if (shareId != null) {
            FieldChecks.uid(run, shareId, path.child("shareID"));
        }
        String id = sharedDeviceId(device);
        if (!allocated.contains(id)) {
            run.add(FieldErrors.invalid(path, id, "must be an allocated device in the claim"));
        }
        List<JsonNode> conditions = run.items(device, "conditions", path);
        if (conditions.size() > DEVICE_CONDITIONS_MAX) {
            run.add(FieldErrors.tooMany(path.child("conditions"), conditions.size(), DEVICE_CONDITIONS_MAX));
        }
        ConditionChecks.conditions(run, conditions, path.child("conditions"));
        JsonNode data = ValidationRun.present(device, "data");
        if (data != null) {
            FieldChecks.rawObject(run, data, path.child("data"), false, DEVICE_DATA_MAX_LENGTH);
        }
        ObjectNode network = run.object(device, "networkData", path);
        if (network != null) {
            networkData(run, network, path.child("networkData"));
        }
    }

    private static void networkData(ValidationRun run, ObjectNode network, FieldPath path) {
        if (GoStrings.byteLength(run.string(network, "interfaceName", path)) > INTERFACE_NAME_MAX_LENGTH) {
            run.add(FieldErrors.tooLong(path.child("interfaceName"), INTERFACE_NAME_MAX_LENGTH));
        }
        if (GoStrings.byteLength(run.string(network, "hardwareAddress", path)) > HARDWARE_ADDRESS_MAX_LENGTH) {
            run.add(FieldErrors.tooLong(path.child("hardwareAddress"), HARDWARE_ADDRESS_MAX_LENGTH));
        }
        CollectionChecks.stringSet(run, network, "ips", path, NETWORK_IPS_MAX, (address, addressPath) -> {
            var canonical = Cidr.canonicalInterfaceAddress(address);
            if (canonical.isEmpty()) {
                run.add(FieldErrors.invalid(addressPath, address,
                        "must be a valid address in CIDR form, (e.g. 10.9.8.7/24 or 2001:db8::1/64)"));
            } else if (!canonical.get().equals(address)) {
                run.add(FieldErrors.invalid(addressPath, address,
                        "must be in canonical form (" + GoStrings.quote(canonical.get()) + ")"));
            }
        });
    }

    private static Set<String> allocatedDevices(ObjectNode allocation) {
        Set<String> ids = new HashSet<>();
        JsonNode results = JsonNodes.get(JsonNodes.get(allocation, "devices"), "results");
        if (results != null && results.isArray()) {
            results.values().forEach(result -> ids.add(sharedDeviceId(result)));
        }
        return ids;
    }

    /** {@code <driver>/<pool>/<device>}, plus {@code /<shareID>} for a shared allocation. */
    private static String sharedDeviceId(JsonNode device) {
        String id = device.path("driver").asString("") + "/" + device.path("pool").asString("") + "/"
                + device.path("device").asString("");
        JsonNode shareId = device.get("shareID");
        return shareId == null || shareId.isNull() ? id : id + "/" + shareId.asString("");
    }
}
