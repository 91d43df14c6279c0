package io.kdra.apiserver.resource;

import io.kdra.apiserver.api.DisabledFields;
import io.kdra.kube.FeatureGates;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.Predicate;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The resource.k8s.io fields that feature gates guard, dropped on writes while their gate is off, as upstream's
 * {@code pkg/registry/resource/*}/strategy.go {@code dropDisabledFields} drop them. A feature whose fields the stored
 * object already uses keeps them on update. Paths are in the storage version ({@code v1}; DeviceTaintRule has no gated
 * field).
 */
final class ResourceFieldGates {

    /** One gated feature: when it is off, which field paths are dropped. */
    private record GatedFields(Predicate<FeatureGates> enabled, List<String> paths) {}

    private static final String CLAIM_DEVICES = "devices";

    private ResourceFieldGates() {
    }

    /** The droppers by kind for the given gates; kinds without gated fields are absent. */
    static Map<String, DisabledFields> forKinds(FeatureGates gates) {
        return Map.of(
                ResourceKinds.RESOURCE_CLAIM, dropper(gates, claimFeatures("spec", true)),
                ResourceKinds.RESOURCE_CLAIM_TEMPLATE, dropper(gates, claimFeatures("spec.spec", false)),
                ResourceKinds.RESOURCE_SLICE, dropper(gates, sliceFeatures()),
                ResourceKinds.DEVICE_CLASS, dropper(gates, List.of(new GatedFields(
                        enabled(FeatureGates.DRA_EXTENDED_RESOURCE), List.of("spec.extendedResourceName")))));
    }

    private static List<GatedFields> claimFeatures(String spec, boolean withStatus) {
        String requests = spec + "." + CLAIM_DEVICES + ".requests[*]";
        String results = "status.allocation.devices.results[*]";
        List<GatedFields> features = new ArrayList<>();
        features.add(new GatedFields(enabled(FeatureGates.DRA_PRIORITIZED_LIST),
                List.of(requests + ".firstAvailable")));
        features.add(new GatedFields(enabled(FeatureGates.DRA_ADMIN_ACCESS), withStatus
                ? List.of(requests + ".exactly.adminAccess", results + ".adminAccess")
                : List.of(requests + ".exactly.adminAccess")));
        features.add(new GatedFields(enabled(FeatureGates.DRA_DEVICE_TAINTS), withStatus
                ? List.of(requests + ".exactly.tolerations", requests + ".firstAvailable[*].tolerations",
                        results + ".tolerations")
                : List.of(requests + ".exactly.tolerations", requests + ".firstAvailable[*].tolerations")));
        List<String> capacity = new ArrayList<>(List.of(requests + ".exactly.capacity",
                requests + ".firstAvailable[*].capacity", spec + "." + CLAIM_DEVICES + ".constraints[*].distinctAttribute"));
        if (withStatus) {
            capacity.addAll(List.of(results + ".shareID", results + ".consumedCapacity", "status.devices[*].shareID"));
            features.add(new GatedFields(bindingConditions(),
                    List.of(results + ".bindingConditions", results + ".bindingFailureConditions")));
            features.add(new GatedFields(enabled(FeatureGates.DRA_RESOURCE_CLAIM_DEVICE_STATUS),
                    List.of("status.devices")));
        }
        features.add(new GatedFields(enabled(FeatureGates.DRA_CONSUMABLE_CAPACITY), capacity));
        return features;
    }

    private static List<GatedFields> sliceFeatures() {
        String devices = "spec.devices[*]";
        return List.of(
                new GatedFields(enabled(FeatureGates.DRA_DEVICE_TAINTS), List.of(devices + ".taints")),
                new GatedFields(enabled(FeatureGates.DRA_PARTITIONABLE_DEVICES), List.of(
                        "spec.sharedCounters", "spec.perDeviceNodeSelection", devices + ".consumesCounters",
                        devices + ".nodeName", devices + ".nodeSelector", devices + ".allNodes")),
                new GatedFields(bindingConditions(), List.of(devices + ".bindsToNode",
                        devices + ".bindingConditions", devices + ".bindingFailureConditions")),
                new GatedFields(enabled(FeatureGates.DRA_CONSUMABLE_CAPACITY), List.of(
                        devices + ".allowMultipleAllocations", devices + ".capacity{*}.requestPolicy")));
    }

    private static Predicate<FeatureGates> enabled(String gate) {
        return gates -> gates.enabled(gate);
    }

    /** Binding conditions need the device status as well, as upstream checks both gates. */
    private static Predicate<FeatureGates> bindingConditions() {
        return gates -> gates.enabled(FeatureGates.DRA_DEVICE_BINDING_CONDITIONS)
                && gates.enabled(FeatureGates.DRA_RESOURCE_CLAIM_DEVICE_STATUS);
    }

    private static DisabledFields dropper(FeatureGates gates, List<GatedFields> features) {
        List<GatedFields> disabled = features.stream().filter(feature -> !feature.enabled().test(gates)).toList();
        if (disabled.isEmpty()) {
            return (object, old) -> { };
        }
        return (object, old) -> {
            for (GatedFields feature : disabled) {
                if (old == null || feature.paths().stream().noneMatch(path -> inUse(old, path))) {
                    feature.paths().forEach(path -> remove(object, path));
                }
            }
        };
    }

    /** Whether the path reaches a value that is set: not null, and not an empty list or map. */
    private static boolean inUse(JsonNode root, String path) {
        boolean[] found = {false};
        visitParents(root, path, (parent, field) -> {
            JsonNode value = parent.get(field);
            found[0] |= value != null && !value.isNull() && !(value.isContainer() && value.isEmpty());
        });
        return found[0];
    }

    private static void remove(JsonNode root, String path) {
        visitParents(root, path, ObjectNode::remove);
    }

    /**
     * Calls {@code action} with every object the path's last field name is looked up in. A segment ending in
     * {@code [*]} goes into each item of a list, one ending in <code>{*}</code> into each value of a map.
     */
    private static void visitParents(JsonNode root, String path, BiConsumer<ObjectNode, String> action) {
        String[] segments = path.split("\\.");
        List<JsonNode> parents = List.of(root);
        for (int i = 0; i < segments.length - 1; i++) {
            parents = step(parents, segments[i]);
        }
        String last = segments[segments.length - 1];
        for (JsonNode parent : parents) {
            if (parent instanceof ObjectNode object) {
                action.accept(object, last);
            }
        }
    }

    private static List<JsonNode> step(List<JsonNode> nodes, String segment) {
        boolean eachItem = segment.endsWith("[*]");
        boolean eachValue = segment.endsWith("{*}");
        String field = eachItem || eachValue ? segment.substring(0, segment.length() - 3) : segment;
        List<JsonNode> next = new ArrayList<>();
        for (JsonNode node : nodes) {
            JsonNode child = node.get(field);
            if (child == null || child.isNull()) {
                continue;
            }
            if (eachItem && child.isArray() || eachValue && child.isObject()) {
                child.values().forEach(next::add);
            } else if (!eachItem && !eachValue) {
                next.add(child);
            }
        }
        return next;
    }
}
