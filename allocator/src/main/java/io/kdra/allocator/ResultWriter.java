package io.kdra.allocator;

import io.kdra.kube.selection.NodeSelectors;

import io.fabric8.kubernetes.api.model.NodeSelector;
import io.fabric8.kubernetes.api.model.NodeSelectorBuilder;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirementBuilder;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.AllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.AllocationResultBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAllocationConfiguration;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAllocationConfigurationBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClaimConfiguration;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClassConfiguration;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResultBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.OpaqueDeviceConfiguration;
import io.fabric8.kubernetes.api.model.resource.v1.OpaqueDeviceConfigurationBuilder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** Turns the picks of one claim into its AllocationResult: results, configs in upstream order, node selector. */
final class ResultWriter {

    static final String FROM_CLASS = "FromClass";
    static final String FROM_CLAIM = "FromClaim";

    private ResultWriter() {}

    static AllocationResult write(AllocationRun.ClaimPlan plan, AllocatorFeatures features, String nodeName)
            throws AllocationException {
        List<DeviceRequestAllocationResult> results = new ArrayList<>(plan.picks.size());
        for (int i = 0; i < plan.picks.size(); i++) {
            results.add(result(plan, i, features));
        }
        return new AllocationResultBuilder()
                .withNewDevices()
                .withResults(results)
                .withConfig(configs(plan))
                .endDevices()
                .withNodeSelector(nodeSelector(plan, nodeName))
                .build();
    }

    private static DeviceRequestAllocationResult result(AllocationRun.ClaimPlan plan, int index,
            AllocatorFeatures features) {
        AllocationRun.Pick pick = plan.picks.get(index);
        DeviceInfo device = pick.device();
        DeviceRequestAllocationResultBuilder result = new DeviceRequestAllocationResultBuilder()
                .withRequest(pick.spec().resultName)
                .withDriver(device.id.driver())
                .withPool(device.id.pool())
                .withDevice(device.id.device());
        if (pick.spec().adminAccess) {
            result.withAdminAccess(true);
        }
        if (!pick.spec().tolerations.isEmpty()) {
            result.withTolerations(new ArrayList<>(pick.spec().tolerations));
        }
        if (features.bindingConditions() && device.hasBindingConditions) {
            result.withBindingConditions(new ArrayList<>(device.device.getBindingConditions()));
            result.withBindingFailureConditions(
                    new ArrayList<>(DeviceInfo.orEmpty(device.device.getBindingFailureConditions())));
        }
        if (!device.skipNodeOperations.isEmpty()) {
            result.withSkipNodeOperations(new ArrayList<>(device.skipNodeOperations));
        }
        if (pick.consumed() != null) {
            result.withShareID(shareId(plan, index));
            Map<String, Quantity> consumed = new LinkedHashMap<>();
            pick.consumed().forEach((name, amount) ->
                    consumed.put(device.capacity.get(name).publishedName(), amount.toQuantity()));
            if (!consumed.isEmpty()) {
                result.withConsumedCapacity(consumed);
            }
        }
        return result.build();
    }

    /**
     * Share IDs must be unique per device; deriving them from the claim and the result's position keeps the
     * allocation deterministic.
     */
    private static String shareId(AllocationRun.ClaimPlan plan, int index) {
        String claimUid = plan.claim.getMetadata() == null ? null : plan.claim.getMetadata().getUid();
        String owner = claimUid == null || claimUid.isEmpty() ? plan.name : claimUid;
        return UUID.nameUUIDFromBytes((owner + "/" + index).getBytes(StandardCharsets.UTF_8)).toString();
    }

    /**
     * Class configs first, once per class, naming the requests of that class; then the claim configs that apply to
     * the allocated (sub)requests. A config that covers every request gets no request list, as upstream.
     */
    private static List<DeviceAllocationConfiguration> configs(AllocationRun.ClaimPlan plan) {
        List<DeviceAllocationConfiguration> configs = new ArrayList<>();
        Map<String, int[]> classConfigRanges = new HashMap<>();
        for (AllocationRun.RequestPlan request : plan.requests) {
            RequestSpec spec = request.selectedSpec();
            int[] range = classConfigRanges.get(spec.className);
            if (range != null) {
                for (int i = range[0]; i < range[1]; i++) {
                    configs.get(i).getRequests().add(spec.resultName);
                }
                continue;
            }
            int start = configs.size();
            if (spec.deviceClass.getSpec() != null) {
                for (DeviceClassConfiguration config : DeviceInfo.orEmpty(spec.deviceClass.getSpec().getConfig())) {
                    configs.add(config(FROM_CLASS, new ArrayList<>(List.of(spec.resultName)), config.getOpaque()));
                }
            }
            classConfigRanges.put(spec.className, new int[] {start, configs.size()});
        }
        List<DeviceClaimConfiguration> claimConfigs = plan.claim.getSpec() == null
                || plan.claim.getSpec().getDevices() == null
                ? List.of() : DeviceInfo.orEmpty(plan.claim.getSpec().getDevices().getConfig());
        for (DeviceClaimConfiguration config : claimConfigs) {
            List<String> names = DeviceInfo.orEmpty(config.getRequests());
            if (names.isEmpty()) {
                configs.add(config(FROM_CLAIM, new ArrayList<>(), config.getOpaque()));
                continue;
            }
            // Upstream adds the config once per request it names, so a config naming two requests appears twice.
            for (AllocationRun.RequestPlan request : plan.requests) {
                RequestSpec spec = request.selectedSpec();
                String requestName = spec.parentName == null ? spec.name : spec.parentName;
                if (names.contains(requestName) || (spec.parentName != null && names.contains(spec.resultName))) {
                    configs.add(config(FROM_CLAIM, new ArrayList<>(names), config.getOpaque()));
                }
            }
        }
        for (DeviceAllocationConfiguration config : configs) {
            if (config.getRequests().size() == plan.requests.length) {
                config.setRequests(new ArrayList<>());
            }
        }
        return configs;
    }

    private static DeviceAllocationConfiguration config(String source, List<String> requests,
            OpaqueDeviceConfiguration opaque) {
        return new DeviceAllocationConfigurationBuilder()
                .withSource(source)
                .withRequests(requests)
                .withOpaque(opaque == null ? null : new OpaqueDeviceConfigurationBuilder(opaque).build())
                .build();
    }

    /**
     * A device bound to one node (node-local slice, per-device node name, bindsToNode) pins the claim to the node
     * by name; otherwise the single-term node selectors of the devices are merged; without any, the claim is usable
     * everywhere (null).
     */
    private static NodeSelector nodeSelector(AllocationRun.ClaimPlan plan, String nodeName)
            throws AllocationException {
        List<NodeSelectorRequirement> fields = new ArrayList<>();
        List<NodeSelectorRequirement> expressions = new ArrayList<>();
        for (AllocationRun.Pick pick : plan.picks) {
            DeviceInfo device = pick.device();
            boolean perDevice = device.slice.perDeviceNodeSelection;
            String deviceNode = perDevice ? device.nodeName() : device.slice.nodeName;
            NodeSelector selector = perDevice ? device.nodeSelector() : device.slice.nodeSelector;
            if (deviceNode != null || device.bindsToNode) {
                return new NodeSelectorBuilder()
                        .addNewNodeSelectorTerm()
                        .addToMatchFields(new NodeSelectorRequirementBuilder()
                                .withKey(NodeSelectors.NODE_NAME_FIELD)
                                .withOperator("In")
                                .withValues(nodeName)
                                .build())
                        .endNodeSelectorTerm()
                        .build();
            }
            if (selector == null) {
                continue;
            }
            List<NodeSelectorTerm> terms = DeviceInfo.orEmpty(selector.getNodeSelectorTerms());
            if (terms.size() > 1) {
                throw new AllocationException(String.format(
                        "create NodeSelector for claim %s: unsupported ResourceSlice.NodeSelector with %d terms",
                        plan.claim.getMetadata().getName(), terms.size()));
            }
            if (terms.size() == 1) {
                addNew(terms.get(0).getMatchFields(), fields);
                addNew(terms.get(0).getMatchExpressions(), expressions);
            }
        }
        if (fields.isEmpty() && expressions.isEmpty()) {
            return null;
        }
        return new NodeSelectorBuilder()
                .addNewNodeSelectorTerm()
                .withMatchExpressions(expressions)
                .withMatchFields(fields)
                .endNodeSelectorTerm()
                .build();
    }

    private static void addNew(List<NodeSelectorRequirement> from, List<NodeSelectorRequirement> to) {
        for (NodeSelectorRequirement requirement : DeviceInfo.orEmpty(from)) {
            boolean present = false;
            for (NodeSelectorRequirement existing : to) {
                if (existing.getKey().equals(requirement.getKey())
                        && existing.getOperator().equals(requirement.getOperator())
                        && new HashSet<>(DeviceInfo.orEmpty(existing.getValues()))
                                .equals(new HashSet<>(DeviceInfo.orEmpty(requirement.getValues())))) {
                    present = true;
                    break;
                }
            }
            if (!present) {
                to.add(new NodeSelectorRequirementBuilder(requirement).build());
            }
        }
    }
}
