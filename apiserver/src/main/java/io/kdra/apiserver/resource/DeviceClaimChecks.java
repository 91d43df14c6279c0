package io.kdra.apiserver.resource;

import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code validateDeviceClaim}: the {@code devices} of a ResourceClaim spec (also inside a ResourceClaimTemplate).
 * Feature-gated fields are checked as with every DRA feature gate of Kubernetes 1.36 enabled.
 */
final class DeviceClaimChecks {

    /** {@code DeviceRequestsMaxSize} = {@code AllocationResultsMaxSize}. */
    static final int REQUESTS_MAX = 32;
    /** {@code FirstAvailableDeviceRequestMaxSize}. */
    static final int SUBREQUESTS_MAX = 8;
    /** {@code DeviceConstraintsMaxSize}. */
    static final int CONSTRAINTS_MAX = 32;
    static final List<String> ALLOCATION_MODES = List.of("All", "ExactCount");

    private DeviceClaimChecks() {
    }

    /** @param path the path of {@code devices}, e.g. {@code spec.devices} */
    static void deviceClaim(ValidationRun run, ObjectNode devices, FieldPath path) {
        RequestNames requestNames = RequestNames.of(devices);
        CollectionChecks.set(run, run.items(devices, "requests", path), REQUESTS_MAX, path.child("requests"),
                (item, itemPath) -> request(run, run.struct(item, itemPath), itemPath),
                CollectionChecks.keyField("name"));
        CollectionChecks.list(run, run.items(devices, "constraints", path), CONSTRAINTS_MAX,
                path.child("constraints"),
                (item, itemPath) -> constraint(run, run.struct(item, itemPath), itemPath, requestNames));
        CollectionChecks.list(run, run.items(devices, "config", path), ConfigChecks.CONFIGS_MAX, path.child("config"),
                (item, itemPath) -> {
                    ObjectNode config = run.struct(item, itemPath);
                    requestReferences(run, config, itemPath, requestNames);
                    ConfigChecks.deviceConfiguration(run, config, itemPath, false);
                });
    }

    /** A {@code requests} list of references to requests, as in constraints and configs. */
    static void requestReferences(ValidationRun run, ObjectNode parent, FieldPath parentPath,
                                  RequestNames requestNames) {
        CollectionChecks.stringSet(run, parent, "requests", parentPath, REQUESTS_MAX,
                (reference, path) -> requestNames.checkReference(run, reference, path));
    }

    private static void request(ValidationRun run, ObjectNode request, FieldPath path) {
        FieldChecks.dnsLabel(run, run.string(request, "name", path), path.child("name"));
        List<JsonNode> firstAvailable = run.items(request, "firstAvailable", path);
        ObjectNode exactly = run.object(request, "exactly", path);
        boolean hasFirstAvailable = !firstAvailable.isEmpty();
        if (!hasFirstAvailable && exactly == null) {
            run.add(FieldErrors.required(path, "exactly one of `exactly` or `firstAvailable` is required"));
        } else if (hasFirstAvailable && exactly != null) {
            run.add(FieldErrors.invalid(path, (JsonNode) null,
                    "exactly one of `exactly` or `firstAvailable` is required, but multiple fields are set"));
        } else if (hasFirstAvailable) {
            CollectionChecks.set(run, firstAvailable, SUBREQUESTS_MAX, path.child("firstAvailable"),
                    (item, itemPath) -> subrequest(run, run.struct(item, itemPath), itemPath),
                    CollectionChecks.keyField("name"));
        } else {
            exactRequest(run, exactly, path.child("exactly"));
        }
    }

    private static void subrequest(ValidationRun run, ObjectNode subrequest, FieldPath path) {
        FieldChecks.dnsLabel(run, run.string(subrequest, "name", path), path.child("name"));
        deviceSelection(run, subrequest, path);
    }

    private static void exactRequest(ValidationRun run, ObjectNode request, FieldPath path) {
        deviceSelection(run, request, path);
        run.boolPointer(request, "adminAccess", path);
    }

    /** What an exact request and a subrequest share: class, selectors, mode and count, tolerations, capacity. */
    private static void deviceSelection(ValidationRun run, ObjectNode request, FieldPath path) {
        FieldChecks.required(run, run.string(request, "deviceClassName", path), path.child("deviceClassName"),
                FieldChecks::dnsSubdomain);
        SelectorChecks.selectors(run, request, path, false);
        allocationMode(run, run.string(request, "allocationMode", path), run.int64(request, "count", path), path);
        TaintChecks.tolerations(run, request, path);
        ObjectNode capacity = run.object(request, "capacity", path);
        if (capacity != null) {
            DeviceChecks.quantities(run, run.object(capacity, "requests", path.child("capacity")),
                    path.child("capacity", "requests"));
        }
    }

    private static void allocationMode(ValidationRun run, String mode, long count, FieldPath path) {
        switch (mode) {
            case "All" -> {
                if (count != 0) {
                    run.add(FieldErrors.invalid(path.child("count"), count,
                            "must not be specified when allocationMode is 'All'"));
                }
            }
            case "ExactCount" -> {
                if (count <= 0) {
                    run.add(FieldErrors.invalid(path.child("count"), count, "must be greater than zero"));
                }
            }
            default -> run.add(FieldErrors.notSupported(path.child("allocationMode"), mode, ALLOCATION_MODES));
        }
    }

    private static void constraint(ValidationRun run, ObjectNode constraint, FieldPath path,
                                   RequestNames requestNames) {
        requestReferences(run, constraint, path, requestNames);
        String matchAttribute = run.stringPointer(constraint, "matchAttribute", path);
        String distinctAttribute = run.stringPointer(constraint, "distinctAttribute", path);
        if (matchAttribute != null) {
            FieldChecks.fullyQualifiedName(run, matchAttribute, path.child("matchAttribute"));
        } else if (distinctAttribute != null) {
            FieldChecks.fullyQualifiedName(run, distinctAttribute, path.child("distinctAttribute"));
        } else {
            run.add(FieldErrors.required(path,
                    "exactly one of \"matchAttribute\" or \"distinctAttribute\" is required, but multiple fields are set"));
        }
    }
}
