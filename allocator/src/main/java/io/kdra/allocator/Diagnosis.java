package io.kdra.allocator;

import io.kdra.kube.taint.DeviceTolerations;

import java.util.Arrays;

/**
 * Explains why the search found no solution, from what the search already evaluated; it never evaluates a selector
 * the search did not need.
 */
final class Diagnosis {

    private final AllocationRun run;

    Diagnosis(AllocationRun run) {
        this.run = run;
    }

    String reason() {
        if (run.pools().isEmpty()) {
            return "no ResourceSlice provides devices for node " + run.nodeName();
        }
        for (NodePool pool : run.pools()) {
            if (pool.invalidReason() != null) {
                return "invalid resource pools were encountered: resource pool " + pool.id() + ": "
                        + pool.invalidReason();
            }
        }
        for (AllocationRun.ClaimPlan plan : run.plans()) {
            for (AllocationRun.RequestPlan request : plan.requests) {
                for (RequestSpec spec : request.specs) {
                    String shortage = shortage(plan, spec);
                    if (shortage != null) {
                        return shortage;
                    }
                }
            }
        }
        return "no combination of the matching devices satisfies all requests, constraints, counters and capacity"
                + " limits";
    }

    /**
     * A shortage only when it is certain: free devices the search never had to check count as if they matched.
     */
    private String shortage(AllocationRun.ClaimPlan plan, RequestSpec spec) {
        if (!spec.allDevicesMode && !spec.searched) {
            return null;
        }
        int matching = 0;
        int unknown = 0;
        for (DeviceInfo device : spec.allDevicesMode ? spec.allDevices : Arrays.asList(run.candidates())) {
            if (!usable(spec, device)) {
                continue;
            }
            Boolean selectable = spec.allDevicesMode ? Boolean.TRUE : spec.selectable.get(device);
            if (selectable == null) {
                unknown++;
            } else if (selectable) {
                matching++;
            }
        }
        int needed = spec.allDevicesMode ? Math.max(1, spec.allDevices.size()) : spec.numDevices;
        if (matching + unknown >= needed) {
            return null;
        }
        return String.format("claim %s, request %s: needs %d device(s), but only %d free device(s) on node %s match"
                + " the selectors", plan.name, spec.resultName, needed, matching, run.nodeName());
    }

    private boolean usable(RequestSpec spec, DeviceInfo device) {
        AllocatorFeatures features = run.features();
        return (features.bindingConditions() || !device.hasBindingConditions)
                && (features.optionalNodeOperations() || device.skipNodeOperations.isEmpty())
                && (spec.adminAccess || !run.inUse(device))
                && !(features.deviceTaints() && DeviceTolerations.preventAllocation(device.taints, spec.tolerations));
    }
}
