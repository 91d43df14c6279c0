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
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

class ResourceClaimValidatorTest {

    static final ObjectNode VALID = object("""
            {apiVersion: 'resource.k8s.io/v1', kind: 'ResourceClaim', metadata: {name: 'claim', namespace: 'ns'},
             spec: {devices: {
               requests: [
                 {name: 'gpu', exactly: {deviceClassName: 'gpu.example.com', allocationMode: 'ExactCount', count: 1,
                    selectors: [{cel: {expression: 'true'}}],
                    tolerations: [{key: 'example.com/taint', operator: 'Equal', value: 'x', effect: 'NoSchedule'}],
                    capacity: {requests: {memory: '1Gi'}}}},
                 {name: 'nic', firstAvailable: [
                    {name: 'fast', deviceClassName: 'nic.example.com', allocationMode: 'ExactCount', count: 1},
                    {name: 'slow', deviceClassName: 'nic.example.com', allocationMode: 'All'}]}],
               constraints: [{requests: ['gpu', 'nic/fast'], matchAttribute: 'example.com/numa'}],
               config: [{requests: ['gpu', 'nic'], opaque: {driver: 'gpu.example.com', parameters: {kind: 'C'}}}]}}}""");

    private static final String EXACT = "/spec/devices/requests/0/exactly";
    private static final String TOLERATION = EXACT + "/tolerations/0";
    private static final String EXACT_PATH = "spec.devices.requests[0].exactly";

    private final ResourceClaimValidator validator = new ResourceClaimValidator(Messages::fakeCel);

    static Stream<Arguments> createCases() {
        return Expect.rows(
                row("valid", VALID),
                row("no devices", object("{spec: {}}")),
                row("request name not a DNS label", with(VALID, "/spec/devices/requests/0/name", "'GPU'"),
                        invalid("spec.devices.requests[0].name", "\"GPU\"", Messages.DNS_LABEL),
                        invalid("spec.devices.constraints[0].requests[0]", "\"gpu\"", Messages.REQUEST_REFERENCE),
                        invalid("spec.devices.config[0].requests[0]", "\"gpu\"", Messages.REQUEST_REFERENCE)),
                row("duplicate request names", with(VALID, "/spec/devices/requests/1",
                                "{name: 'gpu', exactly: {deviceClassName: 'c', allocationMode: 'All'}}"),
                        duplicate("spec.devices.requests[1]", "\"gpu\""),
                        invalid("spec.devices.constraints[0].requests[1]", "\"nic/fast\"", Messages.REQUEST_REFERENCE),
                        invalid("spec.devices.config[0].requests[1]", "\"nic\"", Messages.REQUEST_REFERENCE)),
                row("requests without names", with(object("{spec: {devices: {}}}"), "/spec/devices/requests",
                                repeat(2, "{exactly: {deviceClassName: 'c', allocationMode: 'All'}}")),
                        invalid("spec.devices.requests[0].name", "\"\"", Messages.DNS_LABEL),
                        invalid("spec.devices.requests[1].name", "\"\"", Messages.DNS_LABEL),
                        duplicate("spec.devices.requests[1]", "\"\"")),
                row("too many requests", with(object("{spec: {devices: {}}}"), "/spec/devices/requests",
                                repeat(33, "{name: 'r', exactly: {deviceClassName: 'c', allocationMode: 'All'}}")),
                        tooMany("spec.devices.requests", 33, 32)),
                row("neither exactly nor firstAvailable", with(VALID, "/spec/devices/requests/0", "{name: 'gpu'}"),
                        required("spec.devices.requests[0]",
                                "exactly one of `exactly` or `firstAvailable` is required")),
                row("empty firstAvailable counts as unset", with(VALID, "/spec/devices/requests/0",
                                "{name: 'gpu', firstAvailable: []}"),
                        required("spec.devices.requests[0]",
                                "exactly one of `exactly` or `firstAvailable` is required")),
                row("both exactly and firstAvailable", with(VALID, "/spec/devices/requests/1/exactly",
                                "{deviceClassName: 'c', allocationMode: 'All'}"),
                        invalid("spec.devices.requests[1]", "null",
                                "exactly one of `exactly` or `firstAvailable` is required, but multiple fields are set")),
                row("too many subrequests", with(VALID, "/spec/devices/requests/1/firstAvailable",
                                repeat(9, "{name: 's', deviceClassName: 'c', allocationMode: 'All'}")),
                        tooMany("spec.devices.requests[1].firstAvailable", 9, 8),
                        invalid("spec.devices.constraints[0].requests[1]", "\"nic/fast\"", Messages.REQUEST_REFERENCE)),
                row("duplicate subrequest names", with(VALID, "/spec/devices/requests/1/firstAvailable/1/name",
                                "'fast'"),
                        duplicate("spec.devices.requests[1].firstAvailable[1]", "\"fast\"")),
                row("subrequest name not a DNS label", with(VALID, "/spec/devices/requests/1/firstAvailable/1/name",
                                "'slow.one'"),
                        invalid("spec.devices.requests[1].firstAvailable[1].name", "\"slow.one\"",
                                "must not contain dots")),
                row("subrequest without class", without(VALID, "/spec/devices/requests/1/firstAvailable/0/deviceClassName"),
                        required("spec.devices.requests[1].firstAvailable[0].deviceClassName", "")),
                row("device class missing", without(VALID, EXACT + "/deviceClassName"),
                        required(EXACT_PATH + ".deviceClassName", "")),
                row("device class not a DNS subdomain", with(VALID, EXACT + "/deviceClassName", "'GPU'"),
                        invalid(EXACT_PATH + ".deviceClassName", "\"GPU\"", Messages.DNS_SUBDOMAIN)),
                row("unknown allocation mode", with(VALID, EXACT + "/allocationMode", "'Some'"),
                        notSupported(EXACT_PATH + ".allocationMode", "Some", "\"All\", \"ExactCount\"")),
                row("allocation mode not defaulted", without(VALID, EXACT + "/allocationMode"),
                        notSupported(EXACT_PATH + ".allocationMode", "", "\"All\", \"ExactCount\"")),
                row("exact count of zero", with(VALID, EXACT + "/count", "0"),
                        invalid(EXACT_PATH + ".count", "0", "must be greater than zero")),
                row("count with mode All", with(with(VALID, EXACT + "/allocationMode", "'All'"), EXACT + "/count", "2"),
                        invalid(EXACT_PATH + ".count", "2", "must not be specified when allocationMode is 'All'")),
                row("count of the wrong JSON type", with(VALID, EXACT + "/count", "'1'"),
                        Expect.error(Type.TYPE_INVALID, EXACT_PATH + ".count", "\"1\"", "must be of type int64"),
                        invalid(EXACT_PATH + ".count", "0", "must be greater than zero")),
                row("too many selectors", with(VALID, EXACT + "/selectors", repeat(33, "{cel: {expression: 'true'}}")),
                        tooMany(EXACT_PATH + ".selectors", 33, 32)),
                row("selector does not compile", with(VALID, EXACT + "/selectors/0/cel/expression", "'bad'"),
                        invalid(EXACT_PATH + ".selectors[0].cel.expression", "\"bad\"",
                                "compilation failed: ERROR: <input>:1:1: undeclared reference to 'bad'")),
                row("toleration Exists with a value", with(VALID, TOLERATION + "/operator", "'Exists'"),
                        invalid(EXACT_PATH + ".tolerations[0].value", "\"x\"", "must be empty for operator `Exists`")),
                row("toleration with unknown operator", with(VALID, TOLERATION + "/operator", "'In'"),
                        notSupported(EXACT_PATH + ".tolerations[0].operator", "In", "\"Equal\", \"Exists\"")),
                row("toleration with unknown effect", with(VALID, TOLERATION + "/effect", "'PreferNoSchedule'"),
                        notSupported(EXACT_PATH + ".tolerations[0].effect", "PreferNoSchedule",
                                "\"NoExecute\", \"NoSchedule\", \"None\"")),
                row("toleration key not a label name", with(VALID, TOLERATION + "/key", "'-taint'"),
                        invalid(EXACT_PATH + ".tolerations[0].key", "\"-taint\"", Messages.QUALIFIED_NAME_PART)),
                row("toleration value not a label value", with(VALID, TOLERATION + "/value", "'a b'"),
                        invalid(EXACT_PATH + ".tolerations[0].value", "\"a b\"", Messages.LABEL_VALUE)),
                row("too many tolerations", with(VALID, EXACT + "/tolerations", repeat(17, "{operator: 'Exists'}")),
                        tooMany(EXACT_PATH + ".tolerations", 17, 16)),
                row("capacity request not a quantity", with(VALID, EXACT + "/capacity/requests/memory", "'lots'"),
                        Expect.error(Type.TYPE_INVALID, EXACT_PATH + ".capacity.requests[memory]", "\"lots\"",
                                "quantities must match the regular expression "
                                        + "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")),
                row("constraint without attribute", without(VALID, "/spec/devices/constraints/0/matchAttribute"),
                        required("spec.devices.constraints[0]", "exactly one of \"matchAttribute\" or "
                                + "\"distinctAttribute\" is required, but multiple fields are set")),
                row("match attribute without domain", with(VALID, "/spec/devices/constraints/0/matchAttribute",
                                "'numa'"),
                        invalid("spec.devices.constraints[0].matchAttribute", "\"numa\"",
                                "a fully qualified name must be a domain and a name separated by a slash")),
                row("match attribute name not a C identifier", with(VALID,
                                "/spec/devices/constraints/0/matchAttribute", "'example.com/numa-node'"),
                        invalid("spec.devices.constraints[0].matchAttribute", "\"numa-node\"", Messages.C_IDENTIFIER)),
                row("distinct attribute checked like match attribute", with(without(VALID,
                                "/spec/devices/constraints/0/matchAttribute"),
                                "/spec/devices/constraints/0/distinctAttribute", "'example.com/'"),
                        invalid("spec.devices.constraints[0].distinctAttribute", "\"\"", "the name must not be empty")),
                row("constraint names an unknown request", with(VALID, "/spec/devices/constraints/0/requests/0",
                                "'cpu'"),
                        invalid("spec.devices.constraints[0].requests[0]", "\"cpu\"", Messages.REQUEST_REFERENCE)),
                row("constraint names an unknown subrequest", with(VALID, "/spec/devices/constraints/0/requests/1",
                                "'nic/medium'"),
                        invalid("spec.devices.constraints[0].requests[1]", "\"nic/medium\"",
                                Messages.REQUEST_REFERENCE)),
                row("constraint reference with two slashes", with(VALID, "/spec/devices/constraints/0/requests/1",
                                "'nic/fast/x'"),
                        invalid("spec.devices.constraints[0].requests[1]", "\"nic/fast/x\"",
                                Messages.REQUEST_REFERENCE)),
                row("subrequest of a request without subrequests", with(VALID,
                                "/spec/devices/constraints/0/requests/0", "'gpu/a'"),
                        invalid("spec.devices.constraints[0].requests[0]", "\"gpu/a\"", Messages.REQUEST_REFERENCE)),
                row("duplicate constraint reference", with(VALID, "/spec/devices/constraints/0/requests/1", "'gpu'"),
                        duplicate("spec.devices.constraints[0].requests[1]", "\"gpu\"")),
                row("too many constraints", with(VALID, "/spec/devices/constraints",
                                repeat(33, "{matchAttribute: 'example.com/numa'}")),
                        tooMany("spec.devices.constraints", 33, 32)),
                row("config without opaque", with(VALID, "/spec/devices/config/0", "{requests: ['gpu']}"),
                        required("spec.devices.config[0].opaque", "")),
                row("config names an unknown request", with(VALID, "/spec/devices/config/0/requests/1", "'cpu'"),
                        invalid("spec.devices.config[0].requests[1]", "\"cpu\"", Messages.REQUEST_REFERENCE)),
                row("config parameters not an object", with(VALID, "/spec/devices/config/0/opaque/parameters", "'x'"),
                        invalid("spec.devices.config[0].opaque.parameters", "\"<value omitted>\"",
                                "must be a valid JSON object")),
                row("too many configs", with(VALID, "/spec/devices/config",
                                repeat(33, "{opaque: {driver: 'd.example.com', parameters: {}}}")),
                        tooMany("spec.devices.config", 33, 32)));
    }

    @ParameterizedTest
    @MethodSource("createCases")
    void validatesCreate(ObjectNode object, List<Expect> expected) {
        assertErrors(validator.validateCreate(object), expected.toArray(Expect[]::new));
    }

    @Nested
    class Update {

        @Test
        void specIsImmutable() {
            ObjectNode changed = with(VALID, EXACT + "/count", "2");

            assertErrors(validator.validateUpdate(changed, VALID),
                    invalid("spec", changed.get("spec").toString(), Messages.IMMUTABLE));
        }

        @Test
        void metadataMayChange() {
            assertErrors(validator.validateUpdate(with(VALID, "/metadata/labels", "{a: 'b'}"), VALID));
        }

        @Test
        void absentAndEmptyFieldsAreTheSame() {
            ObjectNode withEmptyList = with(VALID, "/spec/devices/requests/1/firstAvailable/0/selectors", "[]");

            assertErrors(validator.validateUpdate(withEmptyList, VALID));
        }
    }

    @Nested
    class StatusUpdate {

        static final ObjectNode ALLOCATED = with(VALID, "/status", """
                {allocation: {
                   devices: {
                     results: [{request: 'gpu', driver: 'gpu.example.com', pool: 'node-1', device: 'gpu-0'},
                               {request: 'nic/fast', driver: 'nic.example.com', pool: 'node-1', device: 'nic-0',
                                shareID: '0b7b4a3c-9f8e-4d6a-8c1e-2f3a4b5c6d7e',
                                bindingConditions: ['Attached'], bindingFailureConditions: ['Failed']}],
                     config: [{source: 'FromClaim', requests: ['gpu'],
                               opaque: {driver: 'gpu.example.com', parameters: {kind: 'C'}}}]},
                   nodeSelector: {nodeSelectorTerms: [{matchFields: [
                     {key: 'metadata.name', operator: 'In', values: ['node-1']}]}]}},
                 reservedFor: [{resource: 'pods', name: 'pod', uid: 'uid-1'}],
                 devices: [{driver: 'gpu.example.com', pool: 'node-1', device: 'gpu-0',
                            conditions: [{type: 'Ready', status: 'True', reason: 'Prepared',
                                          lastTransitionTime: '2025-01-01T00:00:00Z'}],
                            data: {a: 1},
                            networkData: {interfaceName: 'eth0', ips: ['10.0.0.1/24', '2001:db8::1/64'],
                                          hardwareAddress: 'aa:bb:cc:dd:ee:ff'}}]}""");
        static final String RESULT = "/status/allocation/devices/results/0";
        static final String RESULT_PATH = "status.allocation.devices.results[0]";
        static final String DEVICE = "/status/devices/0";
        static final String DEVICE_PATH = "status.devices[0]";

        static Stream<Arguments> statusCases() {
            return Expect.rows(
                    row("valid", ALLOCATED),
                    row("no status", VALID),
                    row("reserved without allocation", without(ALLOCATED, "/status/allocation"),
                            invalid(DEVICE_PATH, "\"gpu.example.com/node-1/gpu-0\"",
                                    "must be an allocated device in the claim"),
                            forbidden("status.reservedFor", "may not be specified when `allocated` is not set")),
                    row("reservation without uid", without(ALLOCATED, "/status/reservedFor/0/uid"),
                            required("status.reservedFor[0].uid", "")),
                    row("reservation without resource and name", with(ALLOCATED, "/status/reservedFor/0",
                                    "{uid: 'u'}"),
                            required("status.reservedFor[0].resource", ""),
                            required("status.reservedFor[0].name", "")),
                    row("duplicate reservation", with(ALLOCATED, "/status/reservedFor/-",
                                    "{resource: 'pods', name: 'other', uid: 'uid-1'}"),
                            duplicate("status.reservedFor[1]", "\"uid-1\"")),
                    row("too many reservations", with(ALLOCATED, "/status/reservedFor", reservations(257)),
                            tooMany("status.reservedFor", 257, 256)),
                    row("result for an unknown request", with(ALLOCATED, RESULT + "/request", "'cpu'"),
                            invalid(RESULT_PATH + ".request", "\"cpu\"", Messages.REQUEST_REFERENCE)),
                    row("result driver not a DNS subdomain", with(ALLOCATED, RESULT + "/driver", "'gpu_x'"),
                            invalid(DEVICE_PATH, "\"gpu.example.com/node-1/gpu-0\"",
                                    "must be an allocated device in the claim"),
                            invalid(RESULT_PATH + ".driver", "\"gpu_x\"", Messages.DNS_SUBDOMAIN)),
                    row("result without pool", with(ALLOCATED, RESULT + "/pool", "''"),
                            invalid(DEVICE_PATH, "\"gpu.example.com/node-1/gpu-0\"",
                                    "must be an allocated device in the claim"),
                            required(RESULT_PATH + ".pool", "")),
                    row("result pool with an invalid part", with(ALLOCATED, RESULT + "/pool", "'node-1/x_y'"),
                            invalid(DEVICE_PATH, "\"gpu.example.com/node-1/gpu-0\"",
                                    "must be an allocated device in the claim"),
                            invalid(RESULT_PATH + ".pool", "\"x_y\"", Messages.DNS_SUBDOMAIN)),
                    row("too many results", with(ALLOCATED, "/status/allocation/devices/results",
                                    repeat(33, "{request: 'gpu', driver: 'gpu.example.com', pool: 'node-1', "
                                            + "device: 'gpu-0'}")),
                            tooMany("status.allocation.devices.results", 33, 32)),
                    row("share id of the wrong length", with(ALLOCATED,
                                    "/status/allocation/devices/results/1/shareID", "'abc'"),
                            invalid("status.allocation.devices.results[1].shareID", "\"abc\"",
                                    "error validating uid: invalid UUID length: 3")),
                    row("share id in upper case", with(ALLOCATED, "/status/allocation/devices/results/1/shareID",
                                    "'0B7B4A3C-9F8E-4D6A-8C1E-2F3A4B5C6D7E'"),
                            invalid("status.allocation.devices.results[1].shareID",
                                    "\"0B7B4A3C-9F8E-4D6A-8C1E-2F3A4B5C6D7E\"", "uid must be in RFC 4122 normalized "
                                            + "form, `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` with lowercase "
                                            + "hexadecimal characters")),
                    row("binding failure conditions without binding conditions", without(ALLOCATED,
                                    "/status/allocation/devices/results/1/bindingConditions"),
                            invalid("status.allocation.devices.results[1].bindingConditions", "null",
                                    "bindingConditions are required to use bindingFailureConditions")),
                    row("overlapping binding conditions", with(ALLOCATED,
                                    "/status/allocation/devices/results/1/bindingFailureConditions", "['Attached']"),
                            invalid("status.allocation.devices.results[1].bindingFailureConditions[0]",
                                    "\"Attached\"", "bindingFailureConditions must not overlap with bindingConditions")),
                    row("too many binding conditions", with(ALLOCATED,
                                    "/status/allocation/devices/results/1/bindingConditions",
                                    "['a', 'b', 'c', 'd', 'e']"),
                            tooMany("status.allocation.devices.results[1].bindingConditions", 5, 4)),
                    row("config source missing", without(ALLOCATED, "/status/allocation/devices/config/0/source"),
                            required("status.allocation.devices.config[0].source", "")),
                    row("config source unknown", with(ALLOCATED, "/status/allocation/devices/config/0/source",
                                    "'FromNode'"),
                            notSupported("status.allocation.devices.config[0].source", "FromNode",
                                    "\"FromClaim\", \"FromClass\"")),
                    row("too many configs", with(ALLOCATED, "/status/allocation/devices/config",
                                    repeat(65, "{source: 'FromClass', opaque: {driver: 'd.example.com', "
                                            + "parameters: {}}}")),
                            tooMany("status.allocation.devices.config", 65, 64)),
                    row("node selector without terms", with(ALLOCATED, "/status/allocation/nodeSelector", "{}"),
                            required("status.allocation.nodeSelector.nodeSelectorTerms",
                                    "must have at least one node selector term")),
                    row("node selector on an unknown field", with(ALLOCATED,
                                    "/status/allocation/nodeSelector/nodeSelectorTerms/0/matchFields/0/key",
                                    "'metadata.uid'"),
                            invalid("status.allocation.nodeSelector.nodeSelectorTerms[0].matchFields[0].key",
                                    "\"metadata.uid\"", "not a valid field selector key")),
                    row("status of a device that is not allocated", with(ALLOCATED, DEVICE + "/device", "'gpu-9'"),
                            invalid(DEVICE_PATH, "\"gpu.example.com/node-1/gpu-9\"",
                                    "must be an allocated device in the claim")),
                    row("duplicate device status", with(ALLOCATED, "/status/devices/-",
                                    "{driver: 'gpu.example.com', pool: 'node-1', device: 'gpu-0'}"),
                            duplicate("status.devices[1]", "\"gpu.example.com/node-1/gpu-0\"")),
                    row("too many device conditions", with(ALLOCATED, DEVICE + "/conditions", conditions(9)),
                            tooMany(DEVICE_PATH + ".conditions", 9, 8)),
                    row("condition without reason and time", with(ALLOCATED, DEVICE + "/conditions/0",
                                    "{type: 'Ready', status: 'Maybe'}"),
                            notSupported(DEVICE_PATH + ".conditions[0].status", "Maybe",
                                    "\"False\", \"True\", \"Unknown\""),
                            required(DEVICE_PATH + ".conditions[0].lastTransitionTime", "must be set"),
                            required(DEVICE_PATH + ".conditions[0].reason", "must be set")),
                    row("duplicate condition type", with(ALLOCATED, DEVICE + "/conditions/-",
                                    "{type: 'Ready', status: 'True', reason: 'Again', "
                                            + "lastTransitionTime: '2025-01-01T00:00:00Z'}"),
                            duplicate(DEVICE_PATH + ".conditions[1].type", "\"Ready\"")),
                    row("data not an object", with(ALLOCATED, DEVICE + "/data", "[1, 2]"),
                            invalid(DEVICE_PATH + ".data", "\"<value omitted>\"", "must be a valid JSON object")),
                    row("data too large", with(ALLOCATED, DEVICE + "/data", "{x: '" + "y".repeat(10240) + "'}"),
                            tooLong(DEVICE_PATH + ".data", 10240)),
                    row("interface name too long", with(ALLOCATED, DEVICE + "/networkData/interfaceName",
                                    "'" + "i".repeat(257) + "'"),
                            tooLong(DEVICE_PATH + ".networkData.interfaceName", 256)),
                    row("hardware address too long", with(ALLOCATED, DEVICE + "/networkData/hardwareAddress",
                                    "'" + "a".repeat(129) + "'"),
                            tooLong(DEVICE_PATH + ".networkData.hardwareAddress", 128)),
                    row("address not in CIDR form", with(ALLOCATED, DEVICE + "/networkData/ips/0", "'10.0.0.1'"),
                            invalid(DEVICE_PATH + ".networkData.ips[0]", "\"10.0.0.1\"",
                                    "must be a valid address in CIDR form, (e.g. 10.9.8.7/24 or 2001:db8::1/64)")),
                    row("IPv4 address not canonical", with(ALLOCATED, DEVICE + "/networkData/ips/0",
                                    "'10.0.0.01/24'"),
                            invalid(DEVICE_PATH + ".networkData.ips[0]", "\"10.0.0.01/24\"",
                                    "must be in canonical form (\"10.0.0.1/24\")")),
                    row("IPv6 address not canonical", with(ALLOCATED, DEVICE + "/networkData/ips/1",
                                    "'2001:DB8:0:0:0:0:0:1/64'"),
                            invalid(DEVICE_PATH + ".networkData.ips[1]", "\"2001:DB8:0:0:0:0:0:1/64\"",
                                    "must be in canonical form (\"2001:db8::1/64\")")),
                    row("duplicate address", with(ALLOCATED, DEVICE + "/networkData/ips/1", "'10.0.0.1/24'"),
                            duplicate(DEVICE_PATH + ".networkData.ips[1]", "\"10.0.0.1/24\"")),
                    row("too many addresses", with(ALLOCATED, DEVICE + "/networkData/ips", addresses(17)),
                            tooMany(DEVICE_PATH + ".networkData.ips", 17, 16)));
        }

        @ParameterizedTest
        @MethodSource("statusCases")
        void validatesStatusOfNewAllocation(ObjectNode object, List<Expect> expected) {
            assertErrors(validator.validateStatusUpdate(object, VALID), expected.toArray(Expect[]::new));
        }

        @Test
        void allocationIsImmutable() {
            ObjectNode changed = with(ALLOCATED, RESULT + "/device", "'gpu-1'");

            assertErrors(validator.validateStatusUpdate(changed, ALLOCATED),
                    invalid(DEVICE_PATH, "\"gpu.example.com/node-1/gpu-0\"",
                            "must be an allocated device in the claim"),
                    invalid("status.allocation", changed.at("/status/allocation").toString(), Messages.IMMUTABLE));
        }

        @Test
        void storedAllocationIsNotCheckedAgain() {
            ObjectNode stored = with(ALLOCATED, RESULT + "/driver", "'Old_Driver'");
            ObjectNode unreserved = without(with(stored, "/status/devices", "[]"), "/status/reservedFor");

            assertErrors(validator.validateStatusUpdate(unreserved, stored));
        }

        @Test
        void deletedClaimMayNotGainReservations() {
            ObjectNode deleted = with(ALLOCATED, "/metadata/deletionTimestamp", "'2025-01-01T00:00:00Z'");
            ObjectNode before = without(deleted, "/status/reservedFor/0");
            ObjectNode after = with(deleted, "/status/reservedFor/-", "{resource: 'pods', name: 'p2', uid: 'uid-2'}");

            assertErrors(validator.validateStatusUpdate(after, before),
                    forbidden("status.reservedFor", "new entries may not be added while "
                            + "`deallocationRequested` or `deletionTimestamp` are set"));
            assertErrors(validator.validateStatusUpdate(before, deleted));
        }

        private static ArrayNode reservations(int count) {
            ArrayNode array = TestJson.MAPPER.createArrayNode();
            IntStream.range(0, count).forEach(i -> array.add(TestJson.parse(
                    "{resource: 'pods', name: 'p" + i + "', uid: 'u" + i + "'}")));
            return array;
        }

        private static ArrayNode conditions(int count) {
            ArrayNode array = TestJson.MAPPER.createArrayNode();
            IntStream.range(0, count).forEach(i -> array.add(TestJson.parse(
                    "{type: 'T" + i + "', status: 'True', reason: 'R', lastTransitionTime: '2025-01-01T00:00:00Z'}")));
            return array;
        }

        private static ArrayNode addresses(int count) {
            ArrayNode array = TestJson.MAPPER.createArrayNode();
            IntStream.range(0, count).forEach(i -> array.add("10.0.0." + i + "/24"));
            return array;
        }
    }
}
