package io.kdra.allocator;

import io.kdra.kube.taint.DeviceTolerations;

import io.kdra.kube.selection.NodeSelectors;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.AllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.CapacityRequirements;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceConstraint;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequest;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceSelector;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceSubRequest;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceToleration;
import io.fabric8.kubernetes.api.model.resource.v1.ExactDeviceRequest;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.kdra.allocator.cel.CompiledSelector;
import io.kdra.allocator.cel.SelectorCompileException;
import io.kdra.allocator.cel.SelectorCompiler;
import io.kdra.allocator.cel.SelectorEvaluationException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One allocation call: checks the claims, then searches depth-first for the first assignment of devices to all
 * requests of all claims, backtracking when a choice leads nowhere (upstream's allocateOne). Not thread-safe; each call
 * makes its own.
 */
final class AllocationRun {

    /** AllocationResultsMaxSize: at most this many devices per claim. */
    static final int MAX_RESULTS = 32;

    private static final int FOUND = 0;
    private static final int NOT_FOUND = 1;
    /** Not a solution because a claim would get too many results; a subrequest needing fewer devices may still fit. */
    private static final int TOO_MANY_RESULTS = 2;

    /** What the search picked for one device of a claim. */
    record Pick(RequestSpec spec, DeviceInfo device, Map<String, CapacityInfo.Amount> consumed, boolean countersUsed) {}

    /** A request: the exact request, or its subrequests in order of preference. */
    static final class RequestPlan {
        final RequestSpec[] specs;
        final boolean hasSubRequests;
        int selected;

        RequestPlan(RequestSpec[] specs, boolean hasSubRequests) {
            this.specs = specs;
            this.hasSubRequests = hasSubRequests;
        }

        RequestSpec selectedSpec() {
            return specs[selected];
        }
    }

    /** A claim being allocated, with the devices picked so far. */
    static final class ClaimPlan {
        final ResourceClaim claim;
        final String name;
        final RequestPlan[] requests;
        ClaimConstraint[] constraints;
        final ArrayList<Pick> picks = new ArrayList<>();

        ClaimPlan(ResourceClaim claim, String name, RequestPlan[] requests) {
            this.claim = claim;
            this.name = name;
            this.requests = requests;
        }
    }

    /** Shares of a device that allows multiple allocations, picked in this call. */
    private static final class Shares {
        int count;
        final Map<String, BigDecimal> consumed = new HashMap<>();
    }

    private final SelectorCompiler compiler;
    private final AllocatorFeatures features;
    private final Inventory inventory;
    private final Node node;
    private final List<ResourceClaim> claims;
    private final Map<String, DeviceClass> classes;
    private final AllocatedState allocated;

    private List<NodePool> pools;
    private Map<PoolId, NodePool> poolsById;
    /** Devices of usable pools in search order. */
    private DeviceInfo[] candidates;
    private ClaimPlan[] plans;

    /** Devices picked exclusively in this call and the claims they were picked for. */
    private final Map<DeviceInfo, BitSet> picked = new HashMap<>();
    private final Map<DeviceInfo, Shares> shares = new HashMap<>();
    private final Map<PoolId, CounterState> counters = new HashMap<>();

    AllocationRun(SelectorCompiler compiler, AllocatorFeatures features, Inventory inventory, Node node,
            List<ResourceClaim> claims, Map<String, DeviceClass> classes, AllocatedState allocated) {
        this.compiler = compiler;
        this.features = features;
        this.inventory = inventory;
        this.node = node;
        this.claims = claims;
        this.classes = classes;
        this.allocated = allocated;
    }

    AllocationOutcome run() throws AllocationException {
        NodeView view = inventory.nodeView(node);
        pools = view.pools();
        poolsById = view.poolsById();
        candidates = view.candidates();
        plans = new ClaimPlan[claims.size()];
        for (int i = 0; i < plans.length; i++) {
            plans[i] = plan(claims.get(i));
        }
        if (allocateOne(0, 0, 0, 0, false, 0) != FOUND) {
            return new AllocationOutcome.CannotAllocate(new Diagnosis(this).reason());
        }
        List<AllocationResult> results = new ArrayList<>(plans.length);
        for (ClaimPlan plan : plans) {
            results.add(ResultWriter.write(plan, features, nodeName()));
        }
        return new AllocationOutcome.Allocated(results);
    }

    ClaimPlan[] plans() {
        return plans;
    }

    List<NodePool> pools() {
        return pools;
    }

    DeviceInfo[] candidates() {
        return candidates;
    }

    AllocatorFeatures features() {
        return features;
    }

    String nodeName() {
        return node.getMetadata() == null ? null : node.getMetadata().getName();
    }

    // ---- checks before the search ----

    private ClaimPlan plan(ResourceClaim claim) throws AllocationException {
        String claimName = Names.of(claim);
        List<DeviceRequest> requests = claim.getSpec() == null || claim.getSpec().getDevices() == null
                ? List.of() : DeviceInfo.orEmpty(claim.getSpec().getDevices().getRequests());
        RequestPlan[] requestPlans = new RequestPlan[requests.size()];
        int minDevices = 0;
        for (int i = 0; i < requestPlans.length; i++) {
            DeviceRequest request = requests.get(i);
            List<DeviceSubRequest> subRequests = DeviceInfo.orEmpty(request.getFirstAvailable());
            boolean hasSubRequests = !subRequests.isEmpty();
            if (!features.prioritizedList() && hasSubRequests) {
                throw new AllocationException(String.format(
                        "claim %s, request %s: has subrequests, but the DRAPrioritizedList feature is disabled",
                        claimName, request.getName()));
            }
            if (!features.consumableCapacity()) {
                if (request.getExactly() != null && request.getExactly().getCapacity() != null) {
                    throw capacityFeatureDisabled(claimName, "request", request.getName());
                }
                for (DeviceSubRequest sub : subRequests) {
                    if (sub.getCapacity() != null) {
                        throw capacityFeatureDisabled(claimName, "subrequest", sub.getName());
                    }
                }
            }
            RequestSpec[] specs;
            if (hasSubRequests) {
                specs = new RequestSpec[subRequests.size()];
                int fewest = Integer.MAX_VALUE;
                for (int s = 0; s < specs.length; s++) {
                    specs[s] = spec(claimName, request, subRequests.get(s));
                    fewest = Math.min(fewest, specs[s].numDevices);
                }
                minDevices += fewest;
            } else {
                specs = new RequestSpec[] {spec(claimName, request, null)};
                minDevices += specs[0].numDevices;
            }
            requestPlans[i] = new RequestPlan(specs, hasSubRequests);
        }
        if (minDevices > MAX_RESULTS) {
            throw new AllocationException(String.format(
                    "claim %s: number of requested devices %d exceeds the claim limit of %d",
                    claimName, minDevices, MAX_RESULTS));
        }
        ClaimPlan plan = new ClaimPlan(claim, claimName, requestPlans);
        plan.constraints = constraints(claim, claimName);
        return plan;
    }

    private ClaimConstraint[] constraints(ResourceClaim claim, String claimName) throws AllocationException {
        List<DeviceConstraint> constraints = claim.getSpec() == null || claim.getSpec().getDevices() == null
                ? List.of() : DeviceInfo.orEmpty(claim.getSpec().getDevices().getConstraints());
        ClaimConstraint[] result = new ClaimConstraint[constraints.size()];
        for (int i = 0; i < result.length; i++) {
            DeviceConstraint constraint = constraints.get(i);
            List<String> requests = DeviceInfo.orEmpty(constraint.getRequests());
            if (constraint.getMatchAttribute() != null) {
                result[i] = new ClaimConstraint.MatchAttribute(requests, constraint.getMatchAttribute());
            } else if (constraint.getDistinctAttribute() != null && features.consumableCapacity()) {
                result[i] = new ClaimConstraint.DistinctAttribute(requests, constraint.getDistinctAttribute());
            } else {
                throw new AllocationException(String.format(
                        "claim %s, constraint #%d: empty constraint (unsupported constraint type?)", claimName, i));
            }
        }
        return result;
    }

    private RequestSpec spec(String claimName, DeviceRequest request, DeviceSubRequest sub)
            throws AllocationException {
        ExactDeviceRequest exactly = request.getExactly();
        String name = sub != null ? sub.getName() : request.getName();
        List<DeviceSelector> selectors = DeviceInfo.orEmpty(
                sub != null ? sub.getSelectors() : exactly != null ? exactly.getSelectors() : null);
        for (int i = 0; i < selectors.size(); i++) {
            if (selectors.get(i).getCel() == null) {
                throw new AllocationException(String.format(
                        "claim %s, request %s, selector #%d: CEL expression empty (unsupported selector type?)",
                        claimName, name, i));
            }
        }
        Boolean adminAccess = sub == null && exactly != null ? exactly.getAdminAccess() : null;
        if (!features.adminAccess() && adminAccess != null) {
            throw new AllocationException(String.format(
                    "claim %s, request %s: admin access is requested, but the feature is disabled", claimName, name));
        }
        String className = sub != null ? sub.getDeviceClassName() : exactly != null ? exactly.getDeviceClassName() : null;
        if (className == null || className.isEmpty()) {
            throw new AllocationException(String.format(
                    "claim %s, request %s: missing device class name (unsupported request type?)", claimName, name));
        }
        DeviceClass deviceClass = classes.get(className);
        if (deviceClass == null) {
            throw new AllocationException(String.format(
                    "claim %s, request %s: could not retrieve device class %s: deviceclass.resource.k8s.io \"%s\" not"
                            + " found", claimName, name, className, className));
        }
        String mode = sub != null ? sub.getAllocationMode() : exactly.getAllocationMode();
        Long count = sub != null ? sub.getCount() : exactly.getCount();
        List<DeviceToleration> tolerations =
                DeviceInfo.orEmpty(sub != null ? sub.getTolerations() : exactly.getTolerations());
        Map<String, CapacityInfo.Amount> capacity =
                capacityRequests(claimName, name, sub != null ? sub.getCapacity() : exactly.getCapacity());
        boolean all = "All".equals(mode);
        if (!all && mode != null && !mode.isEmpty() && !"ExactCount".equals(mode)) {
            throw new AllocationException(String.format(
                    "claim %s, request %s: unsupported count mode %s", claimName, name, mode));
        }
        long devices = count == null ? 1 : count;
        if (!all && devices > Integer.MAX_VALUE) {
            throw new AllocationException(String.format(
                    "claim %s, request %s: exact count %d is too large", claimName, name, devices));
        }
        RequestSpec spec = new RequestSpec(name, sub != null ? request.getName() : null, className, deviceClass,
                selectors, all, all ? 0 : (int) Math.max(0, devices), Boolean.TRUE.equals(adminAccess), tolerations,
                capacity);
        if (all) {
            spec.allDevices = allDevices(claimName, spec);
            spec.numDevices = spec.allDevices.size();
        }
        return spec;
    }

    private static AllocationException capacityFeatureDisabled(String claimName, String kind, String name) {
        return new AllocationException(String.format(
                "claim %s, %s %s: has capacity requests, but the DRAConsumableCapacity feature is disabled",
                claimName, kind, name));
    }

    private static Map<String, CapacityInfo.Amount> capacityRequests(
            String claimName, String requestName, CapacityRequirements capacity) throws AllocationException {
        if (capacity == null || capacity.getRequests() == null || capacity.getRequests().isEmpty()) {
            return Map.of();
        }
        Map<String, CapacityInfo.Amount> requests = new LinkedHashMap<>();
        for (Map.Entry<String, Quantity> entry : capacity.getRequests().entrySet()) {
            try {
                requests.put(entry.getKey(), new CapacityInfo.Amount(Quantities.parse(entry.getValue(),
                        () -> "capacity " + entry.getKey())));
            } catch (IllegalArgumentException e) {
                throw new AllocationException(
                        String.format("claim %s, request %s: %s", claimName, requestName, e.getMessage()), e);
            }
        }
        return requests;
    }

    private List<DeviceInfo> allDevices(String claimName, RequestSpec spec) throws AllocationException {
        List<DeviceInfo> devices = new ArrayList<>();
        for (NodePool pool : pools) {
            if (pool.incomplete()) {
                throw new AllocationException(String.format(
                        "claim %s, request %s: asks for all devices, but resource pool %s is currently being updated",
                        claimName, spec.name, pool.id()));
            }
            if (pool.invalidReason() != null) {
                throw new AllocationException(String.format(
                        "claim %s, request %s: asks for all devices, but resource pool %s is currently invalid",
                        claimName, spec.name, pool.id()));
            }
            for (SliceInfo slice : pool.deviceSlices()) {
                for (DeviceInfo device : slice.devices()) {
                    if (isSelectable(claimName, spec, device)
                            && (!features.consumableCapacity() || capacityFits(claimName, spec, device))) {
                        devices.add(device);
                    }
                }
            }
        }
        return devices;
    }

    // ---- the search ----

    /**
     * Picks the device with index {@code deviceIndex} for the (sub)request and recurses into the next one.
     *
     * @param inSubRequest the subrequest {@code subIndex} is being tried (rather than choosing one)
     * @param start first candidate to try: devices of one request are picked in candidate order, so each set of
     *     devices is tried once rather than in every order
     */
    private int allocateOne(int claimIndex, int requestIndex, int subIndex, int deviceIndex, boolean inSubRequest,
            int start) throws AllocationException {
        if (Thread.currentThread().isInterrupted()) {
            throw new AllocationException("filter operation aborted: thread interrupted");
        }
        if (claimIndex == plans.length) {
            return FOUND;
        }
        ClaimPlan plan = plans[claimIndex];
        if (requestIndex == plan.requests.length) {
            int outcome = allocateOne(claimIndex + 1, 0, 0, 0, false, 0);
            // Another choice for this claim may leave room for fewer devices in a later claim's subrequest.
            return outcome == TOO_MANY_RESULTS ? NOT_FOUND : outcome;
        }
        RequestPlan request = plan.requests[requestIndex];
        if (!inSubRequest && request.hasSubRequests) {
            boolean allTooMany = true;
            for (int sub = 0; sub < request.specs.length; sub++) {
                int outcome = allocateOne(claimIndex, requestIndex, sub, 0, true, 0);
                if (outcome == TOO_MANY_RESULTS) {
                    continue;
                }
                allTooMany = false;
                if (outcome == FOUND) {
                    request.selected = sub;
                    return FOUND;
                }
            }
            return allTooMany ? TOO_MANY_RESULTS : NOT_FOUND;
        }
        RequestSpec spec = request.specs[subIndex];
        if (spec.allDevicesMode && spec.allDevices.isEmpty()) {
            return NOT_FOUND;
        }
        if (deviceIndex >= spec.numDevices) {
            return allocateOne(claimIndex, requestIndex + 1, 0, 0, false, 0);
        }
        if (plan.picks.size() + spec.numDevices - deviceIndex > MAX_RESULTS) {
            return TOO_MANY_RESULTS;
        }
        if (spec.allDevicesMode) {
            if (!allocateDevice(claimIndex, spec, spec.allDevices.get(deviceIndex), true)) {
                return NOT_FOUND;
            }
            int outcome = allocateOne(claimIndex, requestIndex, subIndex, deviceIndex + 1, inSubRequest, 0);
            if (outcome != FOUND) {
                deallocateLast(claimIndex);
            }
            return outcome;
        }
        for (int i = start; i < candidates.length; i++) {
            DeviceInfo device = candidates[i];
            if (spec.adminAccess ? pickedForClaim(device, claimIndex) : inUse(device)) {
                continue;
            }
            if (!isSelectable(plan.name, spec, device) || !allocateDevice(claimIndex, spec, device, false)) {
                continue;
            }
            int outcome = allocateOne(claimIndex, requestIndex, subIndex, deviceIndex + 1, inSubRequest, i + 1);
            if (outcome == FOUND) {
                return FOUND;
            }
            deallocateLast(claimIndex);
            if (outcome == TOO_MANY_RESULTS) {
                return TOO_MANY_RESULTS;
            }
        }
        if (deviceIndex == 0) {
            spec.searched = true;
        }
        return NOT_FOUND;
    }

    /**
     * Picks one selectable device if it is free, its counters and capacity suffice, its taints are tolerated and the
     * claim's constraints accept it.
     *
     * @param must the request takes exactly this device (All mode): a constraint that refuses it is an error
     */
    private boolean allocateDevice(int claimIndex, RequestSpec spec, DeviceInfo device, boolean must)
            throws AllocationException {
        ClaimPlan plan = plans[claimIndex];
        boolean multiple = features.consumableCapacity() && device.multipleAllocations;
        if (!multiple && spec.adminAccess && pickedForClaim(device, claimIndex)) {
            return false;
        }
        if (!spec.adminAccess && inUse(device)) {
            return false;
        }
        if (!features.partitionableDevices() && !device.counterUses.isEmpty()) {
            return false;
        }
        if (features.deviceTaints() && DeviceTolerations.preventAllocation(device.taints, spec.tolerations)) {
            return false;
        }
        if (features.consumableCapacity() && !capacityFits(plan.name, spec, device)) {
            return false;
        }
        // A device that is already shared has its counters consumed by the first share.
        boolean useCounters = !device.counterUses.isEmpty() && !(multiple && isShared(device));
        if (useCounters && !counterState(device).tryConsume(device)) {
            return false;
        }
        for (int i = 0; i < plan.constraints.length; i++) {
            if (!plan.constraints[i].add(spec, device)) {
                for (int undo = i - 1; undo >= 0; undo--) {
                    plan.constraints[undo].remove(spec);
                }
                if (useCounters) {
                    counterState(device).release(device);
                }
                if (must) {
                    throw new AllocationException(String.format(
                            "claim %s, request %s: cannot add device %s because a claim constraint would not be"
                                    + " satisfied", plan.name, spec.name, device.id));
                }
                return false;
            }
        }
        Map<String, CapacityInfo.Amount> consumed = null;
        if (multiple) {
            consumed = consumption(plan.name, spec, device);
            Shares deviceShares = shares.computeIfAbsent(device, key -> new Shares());
            deviceShares.count++;
            consumed.forEach((name, amount) -> deviceShares.consumed.merge(name, amount.value(), BigDecimal::add));
        } else {
            picked.computeIfAbsent(device, key -> new BitSet()).set(claimIndex);
        }
        plan.picks.add(new Pick(spec, device, consumed, useCounters));
        return true;
    }

    private void deallocateLast(int claimIndex) {
        ClaimPlan plan = plans[claimIndex];
        Pick pick = plan.picks.remove(plan.picks.size() - 1);
        for (int i = plan.constraints.length - 1; i >= 0; i--) {
            plan.constraints[i].remove(pick.spec());
        }
        if (pick.consumed() != null) {
            Shares deviceShares = shares.get(pick.device());
            pick.consumed().forEach((name, amount) -> deviceShares.consumed.merge(name, amount.value().negate(),
                    BigDecimal::add));
            if (--deviceShares.count == 0) {
                shares.remove(pick.device());
            }
        } else {
            picked.get(pick.device()).clear(claimIndex);
        }
        if (pick.countersUsed()) {
            counterState(pick.device()).release(pick.device());
        }
    }

    // ---- device state ----

    boolean inUse(DeviceInfo device) {
        if (allocated.isExclusive(device.id)
                || (!features.consumableCapacity() && allocated.sharedDevices().contains(device.id))) {
            return true;
        }
        BitSet claimsOfDevice = picked.get(device);
        return claimsOfDevice != null && !claimsOfDevice.isEmpty();
    }

    private boolean pickedForClaim(DeviceInfo device, int claimIndex) {
        BitSet claimsOfDevice = picked.get(device);
        return claimsOfDevice != null && claimsOfDevice.get(claimIndex);
    }

    private boolean isShared(DeviceInfo device) {
        return allocated.sharedDevices().contains(device.id) || shares.containsKey(device);
    }

    private CounterState counterState(DeviceInfo device) {
        return counters.computeIfAbsent(device.slice.poolId,
                id -> new CounterState(poolsById.get(id), allocated, features.compatibilityGroups()));
    }

    /** Whether the request's capacity, rounded by the device's policies, fits next to what is consumed already. */
    private boolean capacityFits(String claimName, RequestSpec spec, DeviceInfo device) throws AllocationException {
        Map<String, CapacityInfo.Amount> requested = resolveCapacityRequests(claimName, spec, device);
        if (requested == null) {
            return false;
        }
        Map<String, BigDecimal> before = allocated.consumedCapacity().get(device.id);
        Shares inFlight = shares.get(device);
        for (Map.Entry<String, CapacityInfo> entry : device.capacity.entrySet()) {
            CapacityInfo capacity = entry.getValue();
            CapacityInfo.Amount consumed = capacity.consumedBy(requested.get(entry.getKey()));
            if (capacity.violatesPolicy(consumed)) {
                return false;
            }
            BigDecimal total = consumed.value();
            if (before != null) {
                total = total.add(before.getOrDefault(entry.getKey(), BigDecimal.ZERO));
            }
            if (inFlight != null) {
                total = total.add(inFlight.consumed.getOrDefault(entry.getKey(), BigDecimal.ZERO));
            }
            if (total.compareTo(capacity.value().value()) > 0) {
                return false;
            }
        }
        return true;
    }

    /** What one share of the device consumes, per capacity, for this request. */
    private Map<String, CapacityInfo.Amount> consumption(String claimName, RequestSpec spec, DeviceInfo device)
            throws AllocationException {
        Map<String, CapacityInfo.Amount> requested = resolveCapacityRequests(claimName, spec, device);
        Map<String, CapacityInfo.Amount> consumed = new LinkedHashMap<>();
        for (Map.Entry<String, CapacityInfo> entry : device.capacity.entrySet()) {
            consumed.put(entry.getKey(), entry.getValue().consumedBy(requested.get(entry.getKey())));
        }
        return consumed;
    }

    /**
     * The requested amounts by the device's fully qualified capacity names, or null when the device lacks a requested
     * capacity. A name without a domain means the device's driver.
     */
    private Map<String, CapacityInfo.Amount> resolveCapacityRequests(String claimName, RequestSpec spec,
            DeviceInfo device) throws AllocationException {
        if (spec.capacityRequests.isEmpty()) {
            return Map.of();
        }
        Map<String, CapacityInfo.Amount> resolved = new HashMap<>();
        Map<String, String> spelling = new HashMap<>();
        for (Map.Entry<String, CapacityInfo.Amount> entry : spec.capacityRequests.entrySet()) {
            String name = Names.qualify(entry.getKey(), device.slice.driver);
            if (!device.capacity.containsKey(name)) {
                return null;
            }
            String other = spelling.put(name, entry.getKey());
            if (other != null) {
                throw new AllocationException(String.format(
                        "claim %s, request %s: capacity \"%s\" requested both as \"%s\" and as \"%s\"",
                        claimName, spec.name, name.substring(name.indexOf('/') + 1), other, entry.getKey()));
            }
            resolved.put(name, entry.getValue());
        }
        return resolved;
    }

    // ---- selectors ----

    /** Class selectors, then request selectors, then per-device node selection; cached per request and device. */
    boolean isSelectable(String claimName, RequestSpec spec, DeviceInfo device) throws AllocationException {
        if (!features.bindingConditions() && device.hasBindingConditions) {
            return false;
        }
        if (!features.optionalNodeOperations() && !device.skipNodeOperations.isEmpty()) {
            return false;
        }
        Boolean known = spec.selectable.get(device);
        if (known != null) {
            return known;
        }
        boolean selectable = classSelectorsMatch(spec, device) && requestSelectorsMatch(claimName, spec, device)
                && nodeMatches(device);
        spec.selectable.put(device, selectable);
        return selectable;
    }

    private boolean classSelectorsMatch(RequestSpec spec, DeviceInfo device) throws AllocationException {
        List<DeviceSelector> selectors = spec.classSelectors();
        if (spec.compiledClassSelectors == null) {
            spec.compiledClassSelectors = new CompiledSelector[selectors.size()];
        }
        String owner = "class " + spec.className;
        return selectorsMatch(owner, selectors, spec.compiledClassSelectors, device);
    }

    private boolean requestSelectorsMatch(String claimName, RequestSpec spec, DeviceInfo device)
            throws AllocationException {
        if (spec.compiledSelectors == null) {
            spec.compiledSelectors = new CompiledSelector[spec.selectors.size()];
        }
        return selectorsMatch("claim " + claimName, spec.selectors, spec.compiledSelectors, device);
    }

    private boolean selectorsMatch(String owner, List<DeviceSelector> selectors, CompiledSelector[] compiled,
            DeviceInfo device) throws AllocationException {
        for (int i = 0; i < compiled.length; i++) {
            if (selectors.get(i).getCel() == null) {
                throw new AllocationException(String.format(
                        "%s: selector #%d: CEL expression empty (unsupported selector type?)", owner, i));
            }
            String expression = selectors.get(i).getCel().getExpression();
            if (compiled[i] == null) {
                try {
                    compiled[i] = compiler.compile(expression);
                } catch (SelectorCompileException e) {
                    throw new AllocationException(
                            String.format("%s: selector #%d: CEL compile error: %s", owner, i, e.getMessage()), e);
                }
            }
            try {
                if (!inventory.selectorResults(expression).matches(compiled[i], device)) {
                    return false;
                }
            } catch (SelectorEvaluationException e) {
                throw new AllocationException(String.format(
                        "%s: selector #%d on device %s: CEL runtime error: %s", owner, i, device.id, e.getMessage()), e);
            }
        }
        return true;
    }

    private boolean nodeMatches(DeviceInfo device) throws AllocationException {
        if (!device.slice.perDeviceNodeSelection) {
            return true;
        }
        try {
            return NodeSelectors.nodeMatches(node, device.nodeName(), device.allNodes(), device.nodeSelector());
        } catch (NodeSelectors.InvalidNodeSelectorException e) {
            throw new AllocationException(
                    "device " + device.id + ": failed to parse node selector: " + e.getMessage(), e);
        }
    }
}
