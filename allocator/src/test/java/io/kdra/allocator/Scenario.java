package io.kdra.allocator;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.resource.v1.AllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceTaintRule;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;
import java.util.TreeMap;

/** One allocation input, built step by step, and its outcome in a compact text form for table tests. */
final class Scenario {

    Node node = Fixtures.node(Fixtures.NODE);
    final List<ResourceSlice> slices = new ArrayList<>();
    final List<DeviceClass> classes = new ArrayList<>(List.of(Fixtures.deviceClass("gpu")));
    final List<ResourceClaim> claims = new ArrayList<>();
    final List<DeviceTaintRule> taintRules = new ArrayList<>();
    AllocatedState allocated = AllocatedState.NONE;
    AllocatorFeatures features = AllocatorFeatures.KUBERNETES_1_34;

    Scenario slices(ResourceSliceBuilder... builders) {
        for (ResourceSliceBuilder builder : builders) {
            slices.add(builder.build());
        }
        return this;
    }

    Scenario classes(DeviceClass... deviceClasses) {
        classes.addAll(List.of(deviceClasses));
        return this;
    }

    Scenario claims(ResourceClaimBuilder... builders) {
        for (ResourceClaimBuilder builder : builders) {
            claims.add(builder.build());
        }
        return this;
    }

    Scenario taintRules(DeviceTaintRule... rules) {
        taintRules.addAll(List.of(rules));
        return this;
    }

    Scenario node(Node onNode) {
        node = onNode;
        return this;
    }

    Scenario allocated(AllocatedState state) {
        allocated = state;
        return this;
    }

    Scenario features(AllocatorFeatures enabled) {
        features = enabled;
        return this;
    }

    Scenario gate(String gate, boolean enabled) {
        features = features.withGate(gate, enabled);
        return this;
    }

    AllocationOutcome allocate() throws AllocationException {
        return new StructuredAllocator(Selectors.compilerFor(features), features)
                .allocate(new AllocationInput(claims, node, slices, classes, taintRules, allocated));
    }

    /** The allocation's results, which must exist. */
    List<AllocationResult> results() throws AllocationException {
        AllocationOutcome outcome = allocate();
        if (outcome instanceof AllocationOutcome.Allocated allocatedOutcome) {
            return allocatedOutcome.results();
        }
        throw new AssertionError("expected an allocation, got " + outcome);
    }

    /** The outcome as text: results per claim, {@code cannot allocate: reason} or {@code error: message}. */
    String outcome() {
        try {
            return render(allocate());
        } catch (AllocationException e) {
            return "error: " + e.getMessage();
        }
    }

    static String render(AllocationOutcome outcome) {
        if (outcome instanceof AllocationOutcome.CannotAllocate cannot) {
            return "cannot allocate: " + cannot.reason();
        }
        StringJoiner claimsText = new StringJoiner("; ");
        for (AllocationResult result : ((AllocationOutcome.Allocated) outcome).results()) {
            StringJoiner devices = new StringJoiner(", ");
            for (DeviceRequestAllocationResult device : result.getDevices().getResults()) {
                StringBuilder text = new StringBuilder(device.getRequest()).append('=')
                        .append(device.getPool()).append('/').append(device.getDevice());
                if (Boolean.TRUE.equals(device.getAdminAccess())) {
                    text.append(" admin");
                }
                if (device.getShareID() != null) {
                    text.append(" shared");
                }
                if (device.getConsumedCapacity() != null && !device.getConsumedCapacity().isEmpty()) {
                    text.append(' ').append(new TreeMap<>(device.getConsumedCapacity()));
                }
                if (!device.getBindingConditions().isEmpty()) {
                    text.append(" binding").append(device.getBindingConditions());
                }
                if (!device.getSkipNodeOperations().isEmpty()) {
                    text.append(" skip ").append(device.getSkipNodeOperations());
                }
                devices.add(text);
            }
            claimsText.add(devices.toString());
        }
        return claimsText.toString();
    }
}
