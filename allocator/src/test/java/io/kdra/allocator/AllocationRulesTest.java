package io.kdra.allocator;

import static io.kdra.allocator.Fixtures.NODE;
import static io.kdra.allocator.Fixtures.capacity;
import static io.kdra.allocator.Fixtures.capacityWithPolicy;
import static io.kdra.allocator.Fixtures.claim;
import static io.kdra.allocator.Fixtures.consumes;
import static io.kdra.allocator.Fixtures.counterSet;
import static io.kdra.allocator.Fixtures.device;
import static io.kdra.allocator.Fixtures.deviceClass;
import static io.kdra.allocator.Fixtures.exact;
import static io.kdra.allocator.Fixtures.exactly;
import static io.kdra.allocator.Fixtures.firstAvailable;
import static io.kdra.allocator.Fixtures.integer;
import static io.kdra.allocator.Fixtures.labelSelector;
import static io.kdra.allocator.Fixtures.node;
import static io.kdra.allocator.Fixtures.pool;
import static io.kdra.allocator.Fixtures.request;
import static io.kdra.allocator.Fixtures.selectors;
import static io.kdra.allocator.Fixtures.slice;
import static io.kdra.allocator.Fixtures.str;
import static io.kdra.allocator.Fixtures.sub;
import static io.kdra.allocator.Fixtures.taint;
import static io.kdra.allocator.Fixtures.toleration;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.AllocationResultBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceConstraintBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCounterConsumptionBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResultBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceSelector;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceTaintRule;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceTaintRuleBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceBuilder;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * One row per allocation rule: the input and the expected outcome (results as {@code request=pool/device}, or
 * {@code cannot allocate: reason}, or {@code error: message}). An expectation ending in "..." is a prefix.
 */
class AllocationRulesTest {

    private record Case(String rule, Supplier<Scenario> scenario, String expected) {}

    private static final String TAINTS = "DRADeviceTaints";
    private static final String TAINT_RULES = "DRADeviceTaintRules";
    private static final String PARTITIONABLE = "DRAPartitionableDevices";
    private static final String CONSUMABLE = "DRAConsumableCapacity";
    private static final String COMPATIBILITY_GROUPS = "DRADeviceCompatibilityGroups";
    private static final String OPTIONAL_NODE_OPERATIONS = "DRAOptionalNodeOperations";
    private static final String BINDING = "DRADeviceBindingConditions";

    @TestFactory
    Stream<DynamicTest> rules() {
        return cases().stream().map(c -> DynamicTest.dynamicTest(c.rule(), () -> {
            String outcome = c.scenario().get().outcome();
            if (c.expected().endsWith("...")) {
                assertThat(outcome).startsWith(c.expected().substring(0, c.expected().length() - 3));
            } else {
                assertThat(outcome).isEqualTo(c.expected());
            }
        }));
    }

    private static final String GENERIC = "cannot allocate: no combination of the matching devices satisfies all"
            + " requests, constraints, counters and capacity limits";

    private static List<Case> cases() {
        return List.of(
                // ---- pool gathering ----
                new Case("a node-local device is allocated",
                        () -> oneRequest(1, slice("s1", "p1", NODE).editSpec().addToDevices(device("d0").build())
                                .endSpec()),
                        "r=p1/d0"),
                new Case("the highest pool generation wins",
                        () -> oneRequest(1,
                                pool(slice("s-old", "p1", NODE), 1, 1).editSpec()
                                        .addToDevices(device("d-old").build()).endSpec(),
                                pool(slice("s-new", "p1", NODE), 2, 1).editSpec()
                                        .addToDevices(device("d-new").build()).endSpec()),
                        "r=p1/d-new"),
                new Case("slices of other nodes do not serve the node",
                        () -> oneRequest(1, devices(slice("s1", "p1", "node-2"), "d0")),
                        "cannot allocate: no ResourceSlice provides devices for node node-1"),
                new Case("an incomplete pool is skipped",
                        () -> oneRequest(1, pool(devices(slice("s1", "p1", NODE), "d0"), 1, 2),
                                devices(slice("s2", "p2", NODE), "d0")),
                        "r=p2/d0"),
                new Case("an incomplete pool alone cannot serve the claim",
                        () -> oneRequest(1, pool(devices(slice("s1", "p1", NODE), "d0"), 1, 2)),
                        shortage(1, 0)),
                new Case("All refuses an incomplete pool",
                        () -> allRequest(pool(devices(slice("s1", "p1", NODE), "d0"), 1, 2)),
                        "error: claim ns/c, request r: asks for all devices, but resource pool"
                                + " test.example.com/p1 is currently being updated"),
                new Case("duplicate device names make the pool invalid",
                        () -> oneRequest(1, pool(devices(slice("s1", "p1", NODE), "d0"), 1, 2),
                                pool(devices(slice("s2", "p1", NODE), "d0"), 1, 2)),
                        "cannot allocate: invalid resource pools were encountered: resource pool"
                                + " test.example.com/p1: duplicate device name d0"),
                new Case("All refuses an invalid pool",
                        () -> allRequest(pool(devices(slice("s1", "p1", NODE), "d0"), 1, 2),
                                pool(devices(slice("s2", "p1", NODE), "d0"), 1, 2)),
                        "error: claim ns/c, request r: asks for all devices, but resource pool"
                                + " test.example.com/p1 is currently invalid"),
                new Case("a newer generation for another node supersedes the node's incomplete slice",
                        () -> oneRequest(1, pool(devices(slice("s-a", "p1", NODE), "d0"), 1, 2),
                                pool(devices(slice("s-b", "p1", "node-2"), "d1"), 2, 2)),
                        "cannot allocate: no ResourceSlice provides devices for node node-1"),
                new Case("a slice for all nodes and a slice whose node selector matches serve the node",
                        () -> oneRequest(2, devices(slice("s-all", "p-all", null), "d0").editSpec()
                                                .withAllNodes(true).endSpec(),
                                        devices(slice("s-sel", "p-sel", null), "d1").editSpec()
                                                .withNodeSelector(labelSelector("zone", "In", "a")).endSpec())
                                .node(node(NODE, "zone", "a")),
                        "r=p-all/d0, r=p-sel/d1"),
                new Case("a node selector that does not match hides the slice",
                        () -> oneRequest(1, devices(slice("s-sel", "p-sel", null), "d1").editSpec()
                                        .withNodeSelector(labelSelector("zone", "In", "a")).endSpec())
                                .node(node(NODE, "zone", "b")),
                        "cannot allocate: no ResourceSlice provides devices for node node-1"),
                new Case("an invalid node selector is an error",
                        () -> oneRequest(1, devices(slice("s-sel", "p-sel", null), "d1").editSpec()
                                .withNodeSelector(labelSelector("zone", "Near", "a")).endSpec()),
                        "error: gather pool information: failed to perform node selection for slice s-sel: failed"
                                + " to parse node selector: \"Near\" is not a valid label selector operator"),

                // ---- ExactCount and All ----
                new Case("ExactCount takes devices in pool, slice and device order",
                        () -> oneRequest(2, devices(slice("s1", "p1", NODE), "d0", "d1", "d2")),
                        "r=p1/d0, r=p1/d1"),
                new Case("too few free devices",
                        () -> oneRequest(2, devices(slice("s1", "p1", NODE), "d0", "d1"))
                                .allocated(AllocatedState.of(Set.of(id("p1", "d0")))),
                        shortage(2, 1)),
                new Case("All takes every matching device",
                        () -> models("T1", "T2", "T1").claims(claim("c", request("r",
                                exactly("t1").withAllocationMode("All")))),
                        "r=p1/d0, r=p1/d2"),
                new Case("All needs at least one matching device",
                        () -> models("T2").claims(claim("c", request("r", exactly("t1").withAllocationMode("All")))),
                        shortage(1, 0)),
                new Case("All fails when a matching device is taken",
                        () -> allRequest(devices(slice("s1", "p1", NODE), "d0", "d1"))
                                .allocated(AllocatedState.of(Set.of(id("p1", "d0")))),
                        shortage(2, 1)),
                new Case("more than 32 devices for one claim is an error",
                        () -> oneRequest(33, devices(slice("s1", "p1", NODE), "d0")),
                        "error: claim ns/c: number of requested devices 33 exceeds the claim limit of 32"),
                new Case("the limit counts all requests of a claim",
                        () -> new Scenario().claims(claim("c", exact("a", "gpu", 20), exact("b", "gpu", 13))),
                        "error: claim ns/c: number of requested devices 33 exceeds the claim limit of 32"),
                new Case("the claims of one pod get different devices",
                        () -> new Scenario().slices(devices(slice("s1", "p1", NODE), "d0", "d1"))
                                .claims(claim("c1", exact("r", "gpu", 1)), claim("c2", exact("r", "gpu", 1))),
                        "r=p1/d0; r=p1/d1"),
                new Case("an unknown allocation mode is an error",
                        () -> new Scenario().claims(claim("c", request("r", exactly("gpu").withAllocationMode("Some")))),
                        "error: claim ns/c, request r: unsupported count mode Some"),

                // ---- firstAvailable ----
                new Case("the first subrequest that fits wins",
                        () -> new Scenario().slices(devices(slice("s1", "p1", NODE), "d0"))
                                .claims(claim("c", firstAvailable("r", sub("big", "gpu", 2), sub("small", "gpu", 1)))),
                        "r/small=p1/d0"),
                new Case("subrequests are tried in order",
                        () -> new Scenario().slices(devices(slice("s1", "p1", NODE), "d0", "d1"))
                                .claims(claim("c", firstAvailable("r", sub("big", "gpu", 2), sub("small", "gpu", 1)))),
                        "r/big=p1/d0, r/big=p1/d1"),
                new Case("subrequest selectors apply",
                        () -> models("T1", "T2").claims(claim("c", firstAvailable("r",
                                sub("t2", "gpu", 1, "device.attributes[\"test.example.com\"].model == \"T2\"")))),
                        "r/t2=p1/d1"),
                new Case("subrequests need DRAPrioritizedList",
                        () -> new Scenario().gate("DRAPrioritizedList", false)
                                .claims(claim("c", firstAvailable("r", sub("one", "gpu", 1)))),
                        "error: claim ns/c, request r: has subrequests, but the DRAPrioritizedList feature is"
                                + " disabled"),

                // ---- constraints ----
                new Case("matchAttribute makes requests agree, backtracking if needed",
                        () -> models("T1", "T2", "T2").claims(constrained(claim("c", exact("a", "gpu", 1),
                                exact("b", "gpu", 1)), "test.example.com/model", null)),
                        "a=p1/d1, b=p1/d2"),
                new Case("matchAttribute covers only the listed requests",
                        () -> models("T1", "T2", "T2").claims(constrained(claim("c", exact("a", "gpu", 1),
                                exact("b", "gpu", 1)), "test.example.com/model", null, "a")),
                        "a=p1/d0, b=p1/d1"),
                new Case("a device without the attribute fails matchAttribute",
                        () -> new Scenario().slices(slice("s1", "p1", NODE).editSpec()
                                        .addToDevices(device("d0").build())
                                        .addToDevices(device("d1").addToAttributes("model", str("T1")).build())
                                        .endSpec())
                                .claims(constrained(claim("c", exact("r", "gpu", 1)), "test.example.com/model", null)),
                        "r=p1/d1"),
                new Case("matchAttribute finds attributes of other domains by their full name",
                        () -> new Scenario().slices(slice("s1", "p1", NODE).editSpec()
                                        .addToDevices(device("d0").addToAttributes("other.com/numa", integer(0)).build())
                                        .addToDevices(device("d1").addToAttributes("other.com/numa", integer(1)).build())
                                        .addToDevices(device("d2").addToAttributes("other.com/numa", integer(1)).build())
                                        .endSpec())
                                .claims(constrained(claim("c", exact("a", "gpu", 1), exact("b", "gpu", 1)),
                                        "other.com/numa", null)),
                        "a=p1/d1, b=p1/d2"),
                new Case("matchAttribute can name one subrequest",
                        () -> models("T1", "T2", "T2").claims(constrained(claim("c",
                                firstAvailable("r", sub("two", "gpu", 2))), "test.example.com/model", null, "r/two")),
                        "r/two=p1/d1, r/two=p1/d2"),
                new Case("All with a violated matchAttribute is an error",
                        () -> models("T1", "T2").claims(constrained(claim("c", request("r",
                                exactly("gpu").withAllocationMode("All"))), "test.example.com/model", null)),
                        "error: claim ns/c, request r: cannot add device test.example.com/p1/d1 because a claim"
                                + " constraint would not be satisfied"),
                new Case("distinctAttribute picks different values",
                        () -> models("T1", "T1", "T2").gate(CONSUMABLE, true).claims(constrained(claim("c",
                                exact("r", "gpu", 2)), null, "test.example.com/model")),
                        "r=p1/d0, r=p1/d2"),
                new Case("distinctAttribute needs DRAConsumableCapacity",
                        () -> models("T1", "T2").claims(constrained(claim("c", exact("r", "gpu", 2)), null,
                                "test.example.com/model")),
                        "error: claim ns/c, constraint #0: empty constraint (unsupported constraint type?)"),

                // ---- admin access ----
                new Case("admin access may use an allocated device",
                        () -> new Scenario().slices(devices(slice("s1", "p1", NODE), "d0"))
                                .allocated(AllocatedState.of(Set.of(id("p1", "d0"))))
                                .claims(claim("c", request("r", exactly("gpu").withAdminAccess(true)))),
                        "r=p1/d0 admin"),
                new Case("admin access needs DRAAdminAccess",
                        () -> new Scenario().gate("DRAAdminAccess", false)
                                .claims(claim("c", request("r", exactly("gpu").withAdminAccess(true)))),
                        "error: claim ns/c, request r: admin access is requested, but the feature is disabled"),
                new Case("admin access results do not count as allocated",
                        () -> oneRequest(1, devices(slice("s1", "p1", NODE), "d0"))
                                .allocated(AllocatedState.fromClaims(List.of(allocatedClaim("p1", "d0", true, null)))),
                        "r=p1/d0"),

                // ---- taints and tolerations ----
                new Case("a NoSchedule taint blocks the device",
                        () -> tainted("NoSchedule").gate(TAINTS, true).claims(claim("c", exact("r", "gpu", 1))),
                        "r=p1/d1"),
                new Case("a tolerated taint does not block",
                        () -> tainted("NoSchedule").gate(TAINTS, true).claims(claim("c", request("r",
                                exactly("gpu").withTolerations(toleration("k", "Exists", null, null))))),
                        "r=p1/d0"),
                new Case("an Equal toleration needs the same value",
                        () -> tainted("NoSchedule").gate(TAINTS, true).claims(claim("c", request("r",
                                exactly("gpu").withTolerations(toleration("k", "Equal", "other", "NoSchedule"))))),
                        "r=p1/d1"),
                new Case("a toleration for another effect does not help",
                        () -> tainted("NoExecute").gate(TAINTS, true).claims(claim("c", request("r",
                                exactly("gpu").withTolerations(toleration("k", "Exists", null, "NoSchedule"))))),
                        "r=p1/d1"),
                new Case("a taint with effect None does not block",
                        () -> tainted("None").gate(TAINTS, true).claims(claim("c", exact("r", "gpu", 1))),
                        "r=p1/d0"),
                new Case("taints are ignored without DRADeviceTaints",
                        () -> tainted("NoSchedule").claims(claim("c", exact("r", "gpu", 1))),
                        "r=p1/d0"),
                new Case("a DeviceTaintRule taints the devices it selects",
                        () -> oneRequest(1, devices(slice("s1", "p1", NODE), "d0", "d1"))
                                .gate(TAINTS, true).gate(TAINT_RULES, true)
                                .taintRules(taintRule(Map.of("device", "d0"))),
                        "r=p1/d1"),
                new Case("an empty DeviceTaintRule selector taints every device",
                        () -> oneRequest(1, devices(slice("s1", "p1", NODE), "d0", "d1"))
                                .gate(TAINTS, true).gate(TAINT_RULES, true).taintRules(taintRule(Map.of())),
                        shortage(1, 0)),
                new Case("a DeviceTaintRule without selector taints nothing",
                        () -> oneRequest(1, devices(slice("s1", "p1", NODE), "d0"))
                                .gate(TAINTS, true).gate(TAINT_RULES, true).taintRules(taintRule(null)),
                        "r=p1/d0"),
                new Case("DeviceTaintRules need DRADeviceTaintRules",
                        () -> oneRequest(1, devices(slice("s1", "p1", NODE), "d0"))
                                .gate(TAINTS, true).taintRules(taintRule(Map.of("device", "d0"))),
                        "r=p1/d0"),

                // ---- partitionable devices ----
                new Case("partitions share counters",
                        () -> partitioned().claims(claim("c", exact("r", "gpu", 2))),
                        "r=p1/half-a, r=p1/half-b"),
                new Case("allocated partitions consume counters",
                        () -> partitioned().allocated(AllocatedState.of(Set.of(id("p1", "full"))))
                                .claims(claim("c", exact("r", "gpu", 1))),
                        GENERIC),
                new Case("devices that consume counters need DRAPartitionableDevices",
                        () -> partitioned().gate(PARTITIONABLE, false).claims(claim("c", exact("r", "gpu", 1))),
                        GENERIC),
                new Case("an unknown counter set makes the pool invalid",
                        () -> new Scenario().gate(PARTITIONABLE, true)
                                .slices(slice("s1", "p1", NODE).editSpec().addToDevices(device("d0")
                                        .addToConsumesCounters(consumes("other", "memory", "1")).build()).endSpec())
                                .claims(claim("c", exact("r", "gpu", 1))),
                        "cannot allocate: invalid resource pools were encountered: resource pool"
                                + " test.example.com/p1: counter set other not found"),
                new Case("per-device node selection picks the node's devices",
                        () -> new Scenario().gate(PARTITIONABLE, true)
                                .slices(slice("s1", "p1", null).editSpec().withPerDeviceNodeSelection(true)
                                        .addToDevices(device("d0").withNodeName("node-2").build())
                                        .addToDevices(device("d1").withNodeName(NODE).build()).endSpec())
                                .claims(claim("c", exact("r", "gpu", 1))),
                        "r=p1/d1"),
                new Case("per-device node selection needs DRAPartitionableDevices",
                        () -> new Scenario()
                                .slices(slice("s1", "p1", null).editSpec().withPerDeviceNodeSelection(true)
                                        .addToDevices(device("d1").withNodeName(NODE).build()).endSpec())
                                .claims(claim("c", exact("r", "gpu", 1))),
                        "cannot allocate: no ResourceSlice provides devices for node node-1"),

                // ---- compatibility groups ----
                new Case("devices of one counter set whose groups do not intersect are not allocated together",
                        () -> compatibilityGroups("mig", "vgpu").claims(claim("c1", exact("r", "gpu", 1)),
                                claim("c2", exact("r", "gpu", 1))),
                        GENERIC),
                new Case("devices of one counter set that share a group are allocated together",
                        () -> compatibilityGroups("mig", "mig").claims(claim("c1", exact("r", "gpu", 1)),
                                claim("c2", exact("r", "gpu", 1))),
                        "r=p1/g0; r=p1/g1"),
                new Case("without DRADeviceCompatibilityGroups the groups are ignored",
                        () -> compatibilityGroups("mig", "vgpu").gate(COMPATIBILITY_GROUPS, false)
                                .claims(claim("c1", exact("r", "gpu", 1)), claim("c2", exact("r", "gpu", 1))),
                        "r=p1/g0; r=p1/g1"),

                // ---- optional node operations ----
                new Case("the skipped node operations of the slice are copied into the result",
                        () -> new Scenario().gate(OPTIONAL_NODE_OPERATIONS, true)
                                .slices(slice("s1", "p1", NODE).editSpec().withSkipNodeOperations("*")
                                        .addToDevices(device("d0").build()).endSpec())
                                .claims(claim("c", exact("r", "gpu", 1))),
                        "r=p1/d0 skip [*]"),
                new Case("without DRAOptionalNodeOperations devices that skip node operations are not allocated",
                        () -> new Scenario()
                                .slices(slice("s1", "p1", NODE).editSpec().withSkipNodeOperations("*")
                                        .addToDevices(device("d0").build()).endSpec())
                                .claims(claim("c", exact("r", "gpu", 1))),
                        "cannot allocate: claim ns/c, request r: needs 1 device(s), but only 0 free device(s) on node "
                                + "node-1 match the selectors"),

                // ---- consumable capacity ----
                new Case("a device that allows multiple allocations is shared",
                        () -> shareable(capacity("10Gi")).claims(capacityClaim("c1", "4Gi"), capacityClaim("c2", "4Gi")),
                        "r=p1/d0 shared {memory=4Gi}; r=p1/d0 shared {memory=4Gi}"),
                new Case("shares stop when the capacity is used up",
                        () -> shareable(capacity("10Gi")).claims(capacityClaim("c1", "4Gi"), capacityClaim("c2", "4Gi"),
                                capacityClaim("c3", "4Gi")),
                        GENERIC),
                new Case("validRange rounds a request up to the next step",
                        () -> shareable(capacityWithPolicy("10Gi").withNewRequestPolicy().withNewValidRange()
                                .withMin(new Quantity("1Gi")).withStep(new Quantity("1Gi")).endValidRange()
                                .endRequestPolicy().build()).claims(capacityClaim("c", "1500Mi")),
                        "r=p1/d0 shared {memory=2Gi}"),
                new Case("validRange raises a small request to the minimum",
                        () -> shareable(capacityWithPolicy("10Gi").withNewRequestPolicy().withNewValidRange()
                                .withMin(new Quantity("1Gi")).endValidRange().endRequestPolicy().build())
                                .claims(capacityClaim("c", "1Mi")),
                        "r=p1/d0 shared {memory=1Gi}"),
                new Case("consumed capacity is reported in canonical form",
                        () -> shareable(capacity("10Gi")).claims(capacityClaim("c", "1.5Gi")),
                        "r=p1/d0 shared {memory=1536Mi}"),
                new Case("a request above validRange.max does not fit",
                        () -> shareable(capacityWithPolicy("10Gi").withNewRequestPolicy().withNewValidRange()
                                .withMin(new Quantity("1Gi")).withMax(new Quantity("4Gi")).endValidRange()
                                .endRequestPolicy().build()).claims(capacityClaim("c", "5Gi")),
                        GENERIC),
                new Case("validValues round a request up to the next valid value",
                        () -> shareable(capacityWithPolicy("10Gi").withNewRequestPolicy()
                                .withValidValues(new Quantity("1Gi"), new Quantity("2Gi"), new Quantity("4Gi"))
                                .endRequestPolicy().build()).claims(capacityClaim("c", "3Gi")),
                        "r=p1/d0 shared {memory=4Gi}"),
                new Case("a request above every valid value does not fit",
                        () -> shareable(capacityWithPolicy("10Gi").withNewRequestPolicy()
                                .withValidValues(new Quantity("1Gi"), new Quantity("2Gi"))
                                .endRequestPolicy().build()).claims(capacityClaim("c", "3Gi")),
                        GENERIC),
                new Case("the policy default applies when nothing is requested",
                        () -> shareable(capacityWithPolicy("10Gi").withNewRequestPolicy()
                                .withDefault(new Quantity("1Gi")).endRequestPolicy().build())
                                .claims(claim("c", exact("r", "gpu", 1))),
                        "r=p1/d0 shared {memory=1Gi}"),
                new Case("without a policy, not requesting consumes the whole capacity",
                        () -> shareable(capacity("10Gi")).claims(claim("c1", exact("r", "gpu", 1)),
                                capacityClaim("c2", "1")),
                        GENERIC),
                new Case("capacity already consumed by allocated shares counts",
                        () -> shareable(capacity("10Gi")).claims(capacityClaim("c", "4Gi"))
                                .allocated(new AllocatedState(Set.of(), Set.of(id("p1", "d0")),
                                        Map.of(id("p1", "d0"), Map.of("test.example.com/memory",
                                                new BigDecimal(8L << 30))))),
                        GENERIC),
                new Case("a device without the requested capacity does not fit",
                        () -> shareable(capacity("10Gi")).claims(claim("c", request("r", exactly("gpu")
                                .withNewCapacity().addToRequests("bandwidth", new Quantity("1")).endCapacity()))),
                        GENERIC),
                new Case("a device that allows one allocation is not shared",
                        () -> new Scenario().gate(CONSUMABLE, true)
                                .slices(slice("s1", "p1", NODE).editSpec().addToDevices(device("d0")
                                        .addToCapacity("memory", capacity("10Gi")).build()).endSpec())
                                .claims(capacityClaim("c1", "4Gi"), capacityClaim("c2", "4Gi")),
                        GENERIC),
                new Case("capacity requests need DRAConsumableCapacity",
                        () -> new Scenario().claims(capacityClaim("c", "1Gi")),
                        "error: claim ns/c, request r: has capacity requests, but the DRAConsumableCapacity"
                                + " feature is disabled"),

                // ---- binding conditions ----
                new Case("devices with binding conditions need the binding gates",
                        () -> new Scenario().slices(slice("s1", "p1", NODE).editSpec().addToDevices(device("d0")
                                        .withBindingConditions("attached").build()).endSpec())
                                .claims(claim("c", exact("r", "gpu", 1))),
                        shortage(1, 0)),
                new Case("binding conditions are copied into the result",
                        () -> new Scenario().gate(BINDING, true)
                                .slices(slice("s1", "p1", NODE).editSpec().addToDevices(device("d0")
                                        .withBindingConditions("attached").build()).endSpec())
                                .claims(claim("c", exact("r", "gpu", 1))),
                        "r=p1/d0 binding[attached]"),
                new Case("pools with binding conditions come last",
                        () -> new Scenario().gate(BINDING, true)
                                .slices(slice("s1", "a-pool", NODE).editSpec().addToDevices(device("d0")
                                                .withBindingConditions("attached").build()).endSpec(),
                                        devices(slice("s2", "b-pool", NODE), "d1"))
                                .claims(claim("c", exact("r", "gpu", 1))),
                        "r=b-pool/d1"),

                // ---- selectors, classes and CEL errors ----
                new Case("class selectors filter devices",
                        () -> models("T1", "T2").claims(claim("c", exact("r", "t2", 1))),
                        "r=p1/d1"),
                new Case("request selectors filter devices",
                        () -> models("T1", "T2").claims(claim("c", request("r", exactly("gpu").withSelectors(
                                selectors("device.attributes[\"test.example.com\"].model == \"T2\""))))),
                        "r=p1/d1"),
                new Case("selectors compare attributes and capacities in the Kubernetes CEL environment",
                        () -> new Scenario().slices(slice("s1", "p1", NODE).editSpec()
                                        .addToDevices(device("d0").addToAttributes("model", str("T1"))
                                                .addToCapacity("memory", capacity("4Gi")).build())
                                        .addToDevices(device("d1").addToAttributes("model", str("T1"))
                                                .addToCapacity("memory", capacity("16Gi")).build()).endSpec())
                                .claims(claim("c", request("r", exactly("gpu").withSelectors(selectors(
                                        "device.attributes[\"test.example.com\"].model == \"T1\" && device.capacity["
                                                + "\"test.example.com\"].memory.compareTo(quantity(\"8Gi\")) >= 0"))))),
                        "r=p1/d1"),
                new Case("a CEL runtime error in a class selector aborts the allocation",
                        () -> models("T1").classes(deviceClass("broken",
                                        "device.attributes[\"test.example.com\"].missing == 1"))
                                .claims(claim("c", exact("r", "broken", 1))),
                        "error: class broken: selector #0 on device test.example.com/p1/d0: CEL runtime error: no such"
                                + " key: missing"),
                new Case("a CEL runtime error in a request selector aborts the allocation",
                        () -> models("T1").claims(claim("c", request("r", exactly("gpu").withSelectors(
                                selectors("device.attributes[\"test.example.com\"].missing == 1"))))),
                        "error: claim ns/c: selector #0 on device test.example.com/p1/d0: CEL runtime error: no such"
                                + " key: missing"),
                new Case("an expression that does not compile is an error",
                        () -> models("T1").classes(deviceClass("bad", "device.driver ==")).claims(claim("c",
                                exact("r", "bad", 1))),
                        "error: class bad: selector #0: CEL compile error:..."),
                new Case("a missing class is an error",
                        () -> new Scenario().claims(claim("c", exact("r", "nope", 1))),
                        "error: claim ns/c, request r: could not retrieve device class nope:"
                                + " deviceclass.resource.k8s.io \"nope\" not found"),
                new Case("a request without class is an error",
                        () -> new Scenario().claims(claim("c", request("r", exactly("")))),
                        "error: claim ns/c, request r: missing device class name (unsupported request type?)"),
                new Case("a selector without CEL is an error",
                        () -> new Scenario().claims(claim("c", request("r",
                                exactly("gpu").withSelectors(new DeviceSelector())))),
                        "error: claim ns/c, request r, selector #0: CEL expression empty (unsupported selector"
                                + " type?)"));
    }

    // ---- scenario helpers ----

    private static String shortage(int needed, int matching) {
        return "cannot allocate: claim ns/c, request r: needs " + needed + " device(s), but only " + matching
                + " free device(s) on node node-1 match the selectors";
    }

    static DeviceId id(String pool, String device) {
        return new DeviceId(Fixtures.DRIVER, pool, device);
    }

    static ResourceSliceBuilder devices(ResourceSliceBuilder slice, String... names) {
        for (String name : names) {
            slice.editSpec().addToDevices(device(name).build()).endSpec();
        }
        return slice;
    }

    private static Scenario oneRequest(long count, ResourceSliceBuilder... slices) {
        return new Scenario().slices(slices).claims(claim("c", exact("r", "gpu", count)));
    }

    private static Scenario allRequest(ResourceSliceBuilder... slices) {
        return new Scenario().slices(slices).claims(claim("c", request("r", exactly("gpu").withAllocationMode("All"))));
    }

    /** Devices d0, d1... with the given models, and classes t1 and t2 selecting models T1 and T2. */
    static Scenario models(String... models) {
        ResourceSliceBuilder slice = slice("s1", "p1", NODE);
        for (int i = 0; i < models.length; i++) {
            slice.editSpec().addToDevices(device("d" + i).addToAttributes("model", str(models[i])).build()).endSpec();
        }
        return new Scenario().slices(slice).classes(
                deviceClass("t1", "device.attributes[\"test.example.com\"].model == \"T1\""),
                deviceClass("t2", "device.attributes[\"test.example.com\"].model == \"T2\""));
    }

    private static ResourceClaimBuilder constrained(ResourceClaimBuilder claim, String match, String distinct,
            String... requests) {
        return claim.editSpec().editDevices().addToConstraints(new DeviceConstraintBuilder()
                .withMatchAttribute(match).withDistinctAttribute(distinct).withRequests(requests).build())
                .endDevices().endSpec();
    }

    static ResourceClaim allocatedClaim(String pool, String device, boolean adminAccess, String shareId) {
        return claim("old", exact("r", "gpu", 1)).withNewStatus().withAllocation(new AllocationResultBuilder()
                .withNewDevices().addToResults(new DeviceRequestAllocationResultBuilder().withRequest("r")
                        .withDriver(Fixtures.DRIVER).withPool(pool).withDevice(device)
                        .withAdminAccess(adminAccess ? true : null).withShareID(shareId).build())
                .endDevices().build()).endStatus().build();
    }

    /** d0 with a taint k=v of the effect, d1 clean. */
    private static Scenario tainted(String effect) {
        return new Scenario().slices(slice("s1", "p1", NODE).editSpec()
                .addToDevices(device("d0").addToTaints(taint("k", "v", effect)).build())
                .addToDevices(device("d1").build()).endSpec());
    }

    private static DeviceTaintRule taintRule(Map<String, String> selector) {
        DeviceTaintRuleBuilder rule = new DeviceTaintRuleBuilder().withNewMetadata().withName("rule").endMetadata()
                .withNewSpec().withTaint(taint("rule", "x", "NoSchedule")).endSpec();
        if (selector != null) {
            rule.editSpec().withNewDeviceSelector().withDriver(selector.get("driver")).withPool(selector.get("pool"))
                    .withDevice(selector.get("device")).endDeviceSelector().endSpec();
        }
        return rule.build();
    }

    /** One GPU with 2 memory counters: "full" takes both, "half-a" and "half-b" one each. */
    static Scenario partitioned() {
        return new Scenario().gate(PARTITIONABLE, true).slices(
                pool(slice("s-counters", "p1", NODE), 1, 2).editSpec()
                        .addToSharedCounters(counterSet("gpu-0", "memory", "2")).endSpec(),
                pool(slice("s-devices", "p1", NODE), 1, 2).editSpec()
                        .addToDevices(device("full").addToConsumesCounters(consumes("gpu-0", "memory", "2")).build())
                        .addToDevices(device("half-a").addToConsumesCounters(consumes("gpu-0", "memory", "1")).build())
                        .addToDevices(device("half-b").addToConsumesCounters(consumes("gpu-0", "memory", "1")).build())
                        .endSpec());
    }

    /** Two devices g0 and g1 that each take half of one counter set, declaring these compatibility groups. */
    static Scenario compatibilityGroups(String groupOfG0, String groupOfG1) {
        return new Scenario().gate(PARTITIONABLE, true).gate(COMPATIBILITY_GROUPS, true).slices(
                pool(slice("s-counters", "p1", NODE), 1, 2).editSpec()
                        .addToSharedCounters(counterSet("gpu-0", "mem", "2")).endSpec(),
                pool(slice("s-devices", "p1", NODE), 1, 2).editSpec()
                        .addToDevices(device("g0").addToConsumesCounters(new DeviceCounterConsumptionBuilder(
                                consumes("gpu-0", "mem", "1")).withCompatibilityGroups(groupOfG0).build()).build())
                        .addToDevices(device("g1").addToConsumesCounters(new DeviceCounterConsumptionBuilder(
                                consumes("gpu-0", "mem", "1")).withCompatibilityGroups(groupOfG1).build()).build())
                        .endSpec());
    }

    /** d0 allows multiple allocations and has the memory capacity. */
    static Scenario shareable(io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacity memory) {
        return new Scenario().gate(CONSUMABLE, true).slices(slice("s1", "p1", NODE).editSpec()
                .addToDevices(device("d0").withAllowMultipleAllocations(true).addToCapacity("memory", memory).build())
                .endSpec());
    }

    static ResourceClaimBuilder capacityClaim(String name, String memory) {
        return claim(name, request("r", exactly("gpu").withNewCapacity()
                .addToRequests("memory", new Quantity(memory)).endCapacity()));
    }
}
