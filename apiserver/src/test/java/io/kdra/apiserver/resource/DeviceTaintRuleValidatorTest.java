package io.kdra.apiserver.resource;

import static io.kdra.apiserver.resource.Expect.assertErrors;
import static io.kdra.apiserver.resource.Expect.invalid;
import static io.kdra.apiserver.resource.Expect.notSupported;
import static io.kdra.apiserver.resource.Expect.required;
import static io.kdra.apiserver.resource.Expect.row;
import static io.kdra.apiserver.resource.Expect.tooMany;
import static io.kdra.apiserver.resource.TestJson.object;
import static io.kdra.apiserver.resource.TestJson.with;
import static io.kdra.apiserver.resource.TestJson.without;

import java.util.List;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

class DeviceTaintRuleValidatorTest {

    private static final ObjectNode VALID = object("""
            {apiVersion: 'resource.k8s.io/v1beta2', kind: 'DeviceTaintRule', metadata: {name: 'maintenance'},
             spec: {deviceSelector: {driver: 'gpu.example.com', pool: 'node-1', device: 'gpu-0'},
                    taint: {key: 'example.com/maintenance', value: 'planned', effect: 'NoExecute'}}}""");

    private final DeviceTaintRuleValidator validator = new DeviceTaintRuleValidator(Messages::fakeCel);

    static Stream<Arguments> specCases() {
        return Expect.rows(
                row("valid", VALID),
                row("empty selector selects all devices", with(VALID, "/spec/deviceSelector", "{}")),
                row("no selector selects nothing", without(VALID, "/spec/deviceSelector")),
                row("selector driver not a DNS subdomain", with(VALID, "/spec/deviceSelector/driver", "'gpu_x'"),
                        invalid("spec.deviceSelector.driver", "\"gpu_x\"", Messages.DNS_SUBDOMAIN)),
                row("selector pool empty", with(VALID, "/spec/deviceSelector/pool", "''"),
                        required("spec.deviceSelector.pool", "")),
                row("selector device not a DNS label", with(VALID, "/spec/deviceSelector/device", "'GPU-0'"),
                        invalid("spec.deviceSelector.device", "\"GPU-0\"", Messages.DNS_LABEL)),
                row("taint without key", without(VALID, "/spec/taint/key"),
                        invalid("spec.taint.key", "\"\"", "name part must be non-empty"),
                        invalid("spec.taint.key", "\"\"", Messages.QUALIFIED_NAME_PART)),
                row("taint value not a label value", with(VALID, "/spec/taint/value", "'-x'"),
                        invalid("spec.taint.value", "\"-x\"", Messages.LABEL_VALUE)),
                row("taint without effect", without(VALID, "/spec/taint/effect"),
                        required("spec.taint.effect", "")),
                row("taint with unknown effect", with(VALID, "/spec/taint/effect", "'Evict'"),
                        notSupported("spec.taint.effect", "Evict", "\"NoExecute\", \"NoSchedule\", \"None\"")));
    }

    @ParameterizedTest
    @MethodSource("specCases")
    void validatesCreate(ObjectNode object, List<Expect> expected) {
        assertErrors(validator.validateCreate(object), expected.toArray(Expect[]::new));
    }

    @Test
    void unchangedEffectIsNotCheckedAgainOnUpdate() {
        ObjectNode stored = with(VALID, "/spec/taint/effect", "'FutureEffect'");

        assertErrors(validator.validateUpdate(with(stored, "/spec/taint/value", "'later'"), stored));
        assertErrors(validator.validateUpdate(with(VALID, "/spec/taint/effect", "'Evict'"), VALID),
                notSupported("spec.taint.effect", "Evict", "\"NoExecute\", \"NoSchedule\", \"None\""));
    }

    @Test
    void statusHasAtMostEightValidConditions() {
        ArrayNode conditions = TestJson.MAPPER.createArrayNode();
        IntStream.range(0, 9).forEach(i -> conditions.add(TestJson.parse("{type: 'T" + i + "', status: 'False', "
                + "reason: 'NoPods', lastTransitionTime: '2025-01-01T00:00:00Z'}")));
        ObjectNode tooManyConditions = with(VALID, "/status", "{}");
        tooManyConditions = with(tooManyConditions, "/status/conditions", conditions);
        ObjectNode badReason = with(VALID, "/status", "{conditions: [{type: 'EvictionInProgress', status: 'True', "
                + "reason: '1 pod', lastTransitionTime: '2025-01-01T00:00:00Z', observedGeneration: -1}]}");

        assertErrors(validator.validateStatusUpdate(tooManyConditions, VALID),
                tooMany("status.conditions", 9, 8));
        assertErrors(validator.validateStatusUpdate(badReason, VALID),
                invalid("status.conditions[0].observedGeneration", "-1", "must be greater than or equal to zero"),
                invalid("status.conditions[0].reason", "\"1 pod\"", "a condition reason must start with alphabetic "
                        + "character, optionally followed by a string of alphanumeric characters or '_,:', and must "
                        + "end with an alphanumeric character or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName',  "
                        + "or 'ReasonA,ReasonB',  or 'ReasonA:ReasonB', regex used for validation is "
                        + "'[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?')"));
    }
}
