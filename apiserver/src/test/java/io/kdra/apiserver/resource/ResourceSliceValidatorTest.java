package io.kdra.apiserver.resource;

import static io.kdra.apiserver.resource.Expect.assertErrors;
import static io.kdra.apiserver.resource.Expect.duplicate;
import static io.kdra.apiserver.resource.Expect.forbidden;
import static io.kdra.apiserver.resource.Expect.invalid;
import static io.kdra.apiserver.resource.Expect.notSupported;
import static io.kdra.apiserver.resource.Expect.required;
import static io.kdra.apiserver.resource.Expect.row;
import static io.kdra.apiserver.resource.Expect.tooLong;
import static io.kdra.apiserver.resource.Expect.tooMany;
import static io.kdra.apiserver.resource.TestJson.object;
import static io.kdra.apiserver.resource.TestJson.repeat;
import static io.kdra.apiserver.resource.TestJson.with;
import static io.kdra.apiserver.resource.TestJson.without;

import io.kdra.apiserver.api.FieldError.Type;
import java.util.List;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

class ResourceSliceValidatorTest {

    private static final ObjectNode VALID = object("""
            {apiVersion: 'resource.k8s.io/v1', kind: 'ResourceSlice', metadata: {name: 'node-1-gpu'},
             spec: {driver: 'gpu.example.com', pool: {name: 'node-1', generation: 1, resourceSliceCount: 1},
                    nodeName: 'node-1',
                    devices: [{name: 'gpu-0',
                               attributes: {model: {string: 'a100'}, 'example.com/numa': {int: 0},
                                            driverVersion: {version: '1.2.3-rc.1+build.5'}, healthy: {bool: true}},
                               capacity: {memory: {value: '40Gi'}}}]}}""");
    private static final ObjectNode COUNTERS = object("""
            {spec: {driver: 'gpu.example.com', pool: {name: 'node-1', generation: 1, resourceSliceCount: 2},
                    nodeName: 'node-1',
                    sharedCounters: [{name: 'gpu-0-counters', counters: {memory: {value: '40Gi'}}}]}}""");
    private static final ObjectNode PARTITIONS = object("""
            {spec: {driver: 'gpu.example.com', pool: {name: 'node-1', generation: 1, resourceSliceCount: 2},
                    perDeviceNodeSelection: true,
                    devices: [{name: 'gpu-0-half-0', nodeName: 'node-1',
                               consumesCounters: [{counterSet: 'gpu-0-counters', counters: {memory: {value: '20Gi'}}}],
                               taints: [{key: 'example.com/unhealthy', effect: 'NoSchedule'}],
                               bindingConditions: ['Attached'], bindingFailureConditions: ['Failed']}]}}""");
    private static final ObjectNode SHARED = object("""
            {spec: {driver: 'nic.example.com', pool: {name: 'node-1', generation: 1, resourceSliceCount: 1},
                    allNodes: true,
                    devices: [{name: 'nic-0', allowMultipleAllocations: true,
                               capacity: {bandwidth: {value: '10G',
                                 requestPolicy: {default: '1G', validRange: {min: '1G', max: '10G', step: '1G'}}},
                                          queues: {value: '8',
                                 requestPolicy: {default: '2', validValues: ['1', '2', '4', '8']}}}}]}}""");
    private static final String DEVICE = "/spec/devices/0";
    private static final String DEVICE_PATH = "spec.devices[0]";
    private static final String BANDWIDTH = DEVICE + "/capacity/bandwidth/requestPolicy";
    private static final String BANDWIDTH_PATH = DEVICE_PATH + ".capacity[bandwidth].requestPolicy";
    private static final String QUEUES = DEVICE + "/capacity/queues/requestPolicy";
    private static final String QUEUES_PATH = DEVICE_PATH + ".capacity[queues].requestPolicy";
    /** A 63-character DNS subdomain. */
    private static final String LONG_DOMAIN = "d".repeat(59) + ".com";
    private static final String NODE_SELECTION = "exactly one of `nodeName`, `nodeSelector`, `allNodes`, "
            + "`perDeviceNodeSelection` is required";
    private static final String PER_DEVICE = "exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required "
            + "when `perDeviceNodeSelection` is set to true in the ResourceSlice spec";

    private final ResourceSliceValidator validator = new ResourceSliceValidator(Messages::fakeCel);

    static Stream<Arguments> sliceCases() {
        return Expect.rows(
                row("valid node-local slice", VALID),
                row("valid shared counters", COUNTERS),
                row("valid partitions with per-device node selection", PARTITIONS),
                row("valid consumable capacity", SHARED),
                row("valid node selector", with(without(VALID, "/spec/nodeName"), "/spec/nodeSelector",
                        "{nodeSelectorTerms: [{matchExpressions: [{key: 'zone', operator: 'In', values: ['a']}]}]}")),
                row("driver missing", without(VALID, "/spec/driver"),
                        required("spec.driver", ""), invalid("spec.driver", "\"\"", Messages.DNS_SUBDOMAIN)),
                row("pool name missing", without(VALID, "/spec/pool/name"), required("spec.pool.name", "")),
                row("pool name too long", with(VALID, "/spec/pool/name", "'" + "a".repeat(254) + "'"),
                        tooLong("spec.pool.name", 253),
                        invalid("spec.pool.name", "\"" + "a".repeat(254) + "\"", "must be no more than 253 characters")),
                row("pool name with an invalid part", with(VALID, "/spec/pool/name", "'node-1/Part'"),
                        invalid("spec.pool.name", "\"Part\"", Messages.DNS_SUBDOMAIN)),
                row("no slice count", without(VALID, "/spec/pool/resourceSliceCount"),
                        invalid("spec.pool.resourceSliceCount", "0", "must be greater than zero")),
                row("negative generation", with(VALID, "/spec/pool/generation", "-1"),
                        invalid("spec.pool.generation", "-1", "must be greater than or equal to zero")),
                row("no node selection", without(VALID, "/spec/nodeName"), required("spec", NODE_SELECTION)),
                row("two node selections", with(VALID, "/spec/allNodes", "true"),
                        invalid("spec", "\"{`nodeName`, `allNodes`}\"", NODE_SELECTION
                                + ", but multiple fields are set")),
                row("empty node name", with(VALID, "/spec/nodeName", "''"),
                        invalid("spec.nodeName", "\"\"", "must be either unset or set to a non-empty string"),
                        required("spec", NODE_SELECTION)),
                row("node name not a DNS subdomain", with(VALID, "/spec/nodeName", "'Node_1'"),
                        invalid("spec.nodeName", "\"Node_1\"", Messages.DNS_SUBDOMAIN)),
                row("all nodes false", with(without(VALID, "/spec/nodeName"), "/spec/allNodes", "false"),
                        invalid("spec.allNodes", "false", "must be either unset or set to true"),
                        required("spec", NODE_SELECTION)),
                row("node selector with two terms", with(without(VALID, "/spec/nodeName"), "/spec/nodeSelector",
                                "{nodeSelectorTerms: [{}, {}]}"),
                        invalid("spec.nodeSelector.nodeSelectorTerms", "[{},{}]",
                                "must have exactly one node selector term")),
                row("node selector with a bad requirement", with(without(VALID, "/spec/nodeName"),
                                "/spec/nodeSelector",
                                "{nodeSelectorTerms: [{matchExpressions: [{key: 'zone', operator: 'Exists', "
                                        + "values: ['a']}]}]}"),
                        forbidden("spec.nodeSelector.nodeSelectorTerms[0].matchExpressions[0].values",
                                "may not be specified when `operator` is 'Exists' or 'DoesNotExist'")),
                row("devices and shared counters", with(VALID, "/spec/sharedCounters",
                                "[{name: 'c', counters: {a: {value: '1'}}}]"),
                        invalid("spec", "\"\"", "only one of `sharedCounters` or `devices` is allowed")),
                row("too many devices", with(VALID, "/spec/devices", devices(129, "")),
                        tooMany("spec.devices", 129, 128)),
                row("too many devices with taints", with(VALID, "/spec/devices",
                                devices(65, ", taints: [{key: 'k', effect: 'NoSchedule'}]")),
                        tooMany("spec.devices", 65, 64)),
                row("duplicate device names", with(VALID, "/spec/devices/-", "{name: 'gpu-0'}"),
                        duplicate("spec.devices[1]", "\"gpu-0\"")),
                row("device name not a DNS label", with(VALID, DEVICE + "/name", "'gpu.0'"),
                        invalid(DEVICE_PATH + ".name", "\"gpu.0\"", "must not contain dots")),
                row("attribute name not a C identifier", with(VALID, DEVICE + "/attributes/bad-name",
                                "{bool: true}"),
                        invalid(DEVICE_PATH + ".attributes", "\"bad-name\"", Messages.C_IDENTIFIER)),
                row("attribute domain not a DNS subdomain", with(VALID, DEVICE + "/attributes/Example_com~1x",
                                "{bool: true}"),
                        invalid(DEVICE_PATH + ".attributes", "\"Example_com\"", Messages.DNS_SUBDOMAIN)),
                row("attribute with empty domain", with(VALID, DEVICE + "/attributes/~1x", "{bool: true}"),
                        invalid(DEVICE_PATH + ".attributes", "\"\"", "the domain must not be empty")),
                row("attribute name with two slashes", with(VALID, DEVICE + "/attributes/a~1b~1c", "{bool: true}"),
                        invalid(DEVICE_PATH + ".attributes", "\"a/b/c\"", "must not contain more than one slash")),
                row("attribute identifier too long", with(VALID, DEVICE + "/attributes/" + "x".repeat(33),
                                "{bool: true}"),
                        tooLong(DEVICE_PATH + ".attributes", 32)),
                row("long attribute key is shortened in the value's path", with(VALID,
                                DEVICE + "/attributes/" + LONG_DOMAIN + "~1" + "i".repeat(40), "{}"),
                        tooLong(DEVICE_PATH + ".attributes", 32),
                        invalid(DEVICE_PATH + ".attributes[" + (LONG_DOMAIN + "/" + "i".repeat(40)).substring(0, 47)
                                + "..." + "d.com/" + "i".repeat(40) + "]", "\"\"", "exactly one value must be specified")),
                row("attribute without a value", with(VALID, DEVICE + "/attributes/model", "{}"),
                        invalid(DEVICE_PATH + ".attributes[model]", "\"\"", "exactly one value must be specified")),
                row("attribute with two values", with(VALID, DEVICE + "/attributes/model", "{string: 'a', int: 1}"),
                        invalid(DEVICE_PATH + ".attributes[model]", "{\"string\":\"a\",\"int\":1}",
                                "exactly one value must be specified")),
                row("string attribute too long", with(VALID, DEVICE + "/attributes/model/string",
                                "'" + "s".repeat(65) + "'"),
                        tooLong(DEVICE_PATH + ".attributes[model].string", 64)),
                row("version attribute not semver", with(VALID, DEVICE + "/attributes/driverVersion/version",
                                "'1.2'"),
                        invalid(DEVICE_PATH + ".attributes[driverVersion].version", "\"1.2\"",
                                "must be a string compatible with semver.org spec 2.0.0")),
                row("too many attributes and capacities", with(VALID, DEVICE + "/attributes", attributes(32)),
                        invalid(DEVICE_PATH, "33", "the total number of attributes and capacities must not exceed 32")),
                row("capacity not a quantity", with(VALID, DEVICE + "/capacity/memory/value", "'40 GiB'"),
                        Expect.error(Type.TYPE_INVALID, DEVICE_PATH + ".capacity[memory].value", "\"40 GiB\"",
                                "quantities must match the regular expression "
                                        + "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")),
                row("request policy without multiple allocations", without(SHARED, DEVICE + "/allowMultipleAllocations"),
                        forbidden(BANDWIDTH_PATH, "allowMultipleAllocations must be true"),
                        forbidden(QUEUES_PATH, "allowMultipleAllocations must be true")),
                row("valid values and range together", with(SHARED, QUEUES + "/validRange", "{min: '1'}"),
                        forbidden(QUEUES_PATH, "exactly one policy can be specified, cannot specify \"validValues\" "
                                + "and \"validRange\" at the same time")),
                row("valid values without default", without(SHARED, QUEUES + "/default"),
                        required(QUEUES_PATH + ".default", "required when validValues is defined")),
                row("valid values unsorted, too large, default not among them", with(with(SHARED,
                                QUEUES + "/validValues", "['4', '2', '16']"), QUEUES + "/default", "'3'"),
                        invalid(QUEUES_PATH + ".validValues[1]", "\"2\"", "values must be sorted in ascending order"),
                        invalid(QUEUES_PATH + ".validValues[2]", "\"16\"", "option is larger than capacity value: 8"),
                        invalid(QUEUES_PATH + ".validValues", "\"3\"",
                                "default value is not valid according to the requestPolicy")),
                row("duplicate valid values", with(SHARED, QUEUES + "/validValues", "['1', '2', '2']"),
                        duplicate(QUEUES_PATH + ".validValues[2]", "\"2\"")),
                row("too many valid values: only the size and the default are reported", with(SHARED, QUEUES + "/validValues",
                                "['1', '2', '3', '4', '5', '6', '7', '8', '9', '10', '11']"),
                        tooMany(QUEUES_PATH + ".validValues", 11, 10),
                        invalid(QUEUES_PATH + ".validValues", "\"2\"",
                                "default value is not valid according to the requestPolicy")),
                row("range without default", without(SHARED, BANDWIDTH + "/default"),
                        required(BANDWIDTH_PATH + ".default", "required when validRange is defined")),
                row("range without min", without(SHARED, BANDWIDTH + "/validRange/min"),
                        required(BANDWIDTH_PATH + ".validRange.min", "required when validRange is defined")),
                row("range bounds outside capacity", with(with(SHARED, BANDWIDTH + "/validRange/min", "'20G'"),
                                BANDWIDTH + "/validRange/max", "'30G'"),
                        invalid(BANDWIDTH_PATH + ".validRange.min", "\"20G\"",
                                "min is larger than capacity value: 10G"),
                        invalid(BANDWIDTH_PATH + ".validRange.default", "\"1G\"", "default is less than min: 20G"),
                        invalid(BANDWIDTH_PATH + ".validRange.max", "\"30G\"",
                                "max is larger than capacity value: 10G"),
                        invalid(BANDWIDTH_PATH + ".validRange.step", "\"1G\"",
                                "one step 21G is larger than capacity value: 10G")),
                row("default not on a step", with(with(SHARED, BANDWIDTH + "/default", "'1500M'"),
                                BANDWIDTH + "/validRange/max", "'9G'"),
                        invalid(BANDWIDTH_PATH + ".validRange.step", "\"1500M\"",
                                "value is not a multiple of a given step (1G) from (1G)")),
                row("step of zero", with(SHARED, BANDWIDTH + "/validRange/step", "'0'"),
                        invalid(BANDWIDTH_PATH + ".validRange.step", "\"0\"", "must be greater than zero")),
                row("taint without effect", without(PARTITIONS, DEVICE + "/taints/0/effect"),
                        required(DEVICE_PATH + ".taints[0].effect", "")),
                row("taint with unknown effect", with(PARTITIONS, DEVICE + "/taints/0/effect", "'PreferNoSchedule'"),
                        notSupported(DEVICE_PATH + ".taints[0].effect", "PreferNoSchedule",
                                "\"NoExecute\", \"NoSchedule\", \"None\"")),
                row("too many taints", with(PARTITIONS, DEVICE + "/taints",
                                repeat(17, "{key: 'k', effect: 'None'}")),
                        tooMany(DEVICE_PATH + ".taints", 17, 16)),
                row("too many counter consumptions", with(PARTITIONS, DEVICE + "/consumesCounters",
                                repeat(3, "{counterSet: 'c', counters: {a: {value: '1'}}}")),
                        tooMany(DEVICE_PATH + ".consumesCounters", 3, 2)),
                row("duplicate counter consumption", with(PARTITIONS, DEVICE + "/consumesCounters/-",
                                "{counterSet: 'gpu-0-counters', counters: {a: {value: '1'}}}"),
                        duplicate(DEVICE_PATH + ".consumesCounters[1]", "\"gpu-0-counters\"")),
                row("consumption without counters", with(PARTITIONS, DEVICE + "/consumesCounters/0",
                                "{counterSet: 'Bad'}"),
                        invalid(DEVICE_PATH + ".consumesCounters[0].counterSet", "\"Bad\"", Messages.DNS_LABEL),
                        required(DEVICE_PATH + ".consumesCounters[0].counters", "")),
                row("device node name without per-device selection", with(VALID, DEVICE + "/nodeName", "'node-1'"),
                        invalid(DEVICE_PATH, "null", "`nodeName`, `nodeSelector` and `allNodes` can only be set if "
                                + "`perDeviceNodeSelection` is set to true in the ResourceSlice spec")),
                row("per-device selection missing on a device", without(PARTITIONS, DEVICE + "/nodeName"),
                        required(DEVICE_PATH, PER_DEVICE)),
                row("two per-device selections", with(PARTITIONS, DEVICE + "/allNodes", "true"),
                        invalid(DEVICE_PATH, "\"{`nodeName`, `allNodes`}\"", PER_DEVICE)),
                row("empty per-device node name", with(PARTITIONS, DEVICE + "/nodeName", "''"),
                        invalid(DEVICE_PATH + ".nodeName", "\"\"", "must not be empty"),
                        required(DEVICE_PATH, PER_DEVICE)),
                row("binding failure conditions without binding conditions",
                        without(PARTITIONS, DEVICE + "/bindingConditions"),
                        invalid(DEVICE_PATH + ".bindingConditions", "null",
                                "bindingConditions are required to use bindingFailureConditions")),
                row("duplicate binding condition", with(PARTITIONS, DEVICE + "/bindingConditions",
                                "['Attached', 'Attached']"),
                        duplicate(DEVICE_PATH + ".bindingConditions[1]", "\"Attached\"")),
                row("too many counter sets", with(COUNTERS, "/spec/sharedCounters",
                                repeat(9, "{name: 'c', counters: {a: {value: '1'}}}")),
                        tooMany("spec.sharedCounters", 9, 8)),
                row("duplicate counter sets", with(COUNTERS, "/spec/sharedCounters/-",
                                "{name: 'gpu-0-counters', counters: {a: {value: '1'}}}"),
                        duplicate("spec.sharedCounters[1]", "\"gpu-0-counters\"")),
                row("counter set without name and counters", with(COUNTERS, "/spec/sharedCounters/0", "{}"),
                        required("spec.sharedCounters[0].name", ""),
                        required("spec.sharedCounters[0].counters", "")),
                row("counter name not a DNS label", with(COUNTERS, "/spec/sharedCounters/0/counters/Mem",
                                "{value: '1'}"),
                        invalid("spec.sharedCounters[0].counters", "\"Mem\"", Messages.DNS_LABEL)),
                row("too many counters", with(COUNTERS, "/spec/sharedCounters/0/counters", counters(33)),
                        tooMany("spec.sharedCounters[0].counters", 33, 32)));
    }

    @ParameterizedTest
    @MethodSource("sliceCases")
    void validatesCreate(ObjectNode object, List<Expect> expected) {
        assertErrors(validator.validateCreate(object), expected.toArray(Expect[]::new));
    }

    @Test
    void driverPoolAndNodeAreImmutable() {
        ObjectNode changed = with(with(with(VALID, "/spec/driver", "'other.example.com'"),
                "/spec/pool/name", "'pool-2'"), "/spec/nodeName", "'node-2'");

        assertErrors(validator.validateUpdate(changed, VALID),
                invalid("spec.pool.name", "\"pool-2\"", Messages.IMMUTABLE),
                invalid("spec.driver", "\"other.example.com\"", Messages.IMMUTABLE),
                invalid("spec.nodeName", "\"node-2\"", Messages.IMMUTABLE));
    }

    @Test
    void unchangedCapacityAndTaintsAreNotCheckedAgain() {
        ObjectNode stored = with(with(PARTITIONS, DEVICE + "/taints/0/effect", "'FutureEffect'"),
                DEVICE + "/capacity", "{memory: {value: '1Gi', requestPolicy: {default: '1Gi'}}}");
        ObjectNode relabelled = with(stored, DEVICE + "/attributes", "{model: {string: 'h100'}}");

        assertErrors(validator.validateUpdate(relabelled, stored));
    }

    private static ArrayNode devices(int count, String extra) {
        ArrayNode array = TestJson.MAPPER.createArrayNode();
        IntStream.range(0, count).forEach(i -> array.add(TestJson.parse("{name: 'd" + i + "'" + extra + "}")));
        return array;
    }

    private static ObjectNode attributes(int count) {
        ObjectNode map = TestJson.MAPPER.createObjectNode();
        IntStream.range(0, count).forEach(i -> map.set("a" + i, TestJson.parse("{int: " + i + "}")));
        return map;
    }

    private static ObjectNode counters(int count) {
        ObjectNode map = TestJson.MAPPER.createObjectNode();
        IntStream.range(0, count).forEach(i -> map.set("c" + i, TestJson.parse("{value: '1'}")));
        return map;
    }
}
