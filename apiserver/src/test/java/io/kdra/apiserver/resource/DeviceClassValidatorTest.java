package io.kdra.apiserver.resource;

import static io.kdra.apiserver.resource.Expect.assertErrors;
import static io.kdra.apiserver.resource.Expect.invalid;
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
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.node.ObjectNode;

class DeviceClassValidatorTest {

    private static final ObjectNode VALID = object("""
            {apiVersion: 'resource.k8s.io/v1', kind: 'DeviceClass', metadata: {name: 'gpu'},
             spec: {selectors: [{cel: {expression: 'device.driver == "gpu.example.com"'}}],
                    config: [{opaque: {driver: 'gpu.example.com', parameters: {kind: 'GpuConfig'}}}],
                    extendedResourceName: 'example.com/gpu'}}""");

    private final DeviceClassValidator validator = new DeviceClassValidator(Messages::fakeCel);

    static Stream<Arguments> createCases() {
        String longText = "x".repeat(SelectorChecks.EXPRESSION_MAX_LENGTH + 1);
        return Expect.rows(
                row("valid", VALID),
                row("empty spec", object("{spec: {}}")),
                row("upper-case driver is accepted as upstream checks it case-insensitively",
                        with(VALID, "/spec/config/0/opaque/driver", "'GPU.Example.com'")),
                row("selector without cel", with(VALID, "/spec/selectors/0", "{}"),
                        required("spec.selectors[0].cel", "")),
                row("too many selectors", with(VALID, "/spec/selectors", repeat(33, "{cel: {expression: 'true'}}")),
                        tooMany("spec.selectors", 33, 32)),
                row("expression too long", with(VALID, "/spec/selectors/0/cel/expression", "'" + longText + "'"),
                        tooLong("spec.selectors[0].cel.expression", 10240)),
                row("expression does not compile", with(VALID, "/spec/selectors/0/cel/expression", "'bad'"),
                        invalid("spec.selectors[0].cel.expression", "\"bad\"",
                                "compilation failed: ERROR: <input>:1:1: undeclared reference to 'bad'")),
                row("config without opaque", with(VALID, "/spec/config/0", "{}"),
                        required("spec.config[0].opaque", "")),
                row("too many configs", with(VALID, "/spec/config",
                                repeat(33, "{opaque: {driver: 'd.example.com', parameters: {}}}")),
                        tooMany("spec.config", 33, 32)),
                row("opaque without driver", without(VALID, "/spec/config/0/opaque/driver"),
                        required("spec.config[0].opaque.driver", ""),
                        invalid("spec.config[0].opaque.driver", "\"\"", Messages.DNS_SUBDOMAIN)),
                row("driver not a DNS subdomain", with(VALID, "/spec/config/0/opaque/driver", "'gpu_example.com'"),
                        invalid("spec.config[0].opaque.driver", "\"gpu_example.com\"", Messages.DNS_SUBDOMAIN)),
                row("driver too long", with(VALID, "/spec/config/0/opaque/driver", "'" + "a".repeat(64) + "'"),
                        tooLong("spec.config[0].opaque.driver", 63)),
                row("parameters missing", without(VALID, "/spec/config/0/opaque/parameters"),
                        required("spec.config[0].opaque.parameters", "")),
                row("parameters null", with(VALID, "/spec/config/0/opaque/parameters", "null"),
                        required("spec.config[0].opaque.parameters", "")),
                row("parameters not an object", with(VALID, "/spec/config/0/opaque/parameters", "[1]"),
                        invalid("spec.config[0].opaque.parameters", "\"<value omitted>\"",
                                "must be a valid JSON object")),
                row("parameters too large", with(VALID, "/spec/config/0/opaque/parameters",
                                "{data: '" + "x".repeat(10240) + "'}"),
                        tooLong("spec.config[0].opaque.parameters", 10240)),
                row("extended resource name without domain", with(VALID, "/spec/extendedResourceName", "'gpu'"),
                        invalid("spec.extendedResourceName", "\"gpu\"", "must be a valid extended resource name")),
                row("extended resource name in kubernetes.io",
                        with(VALID, "/spec/extendedResourceName", "'kubernetes.io/gpu'"),
                        invalid("spec.extendedResourceName", "\"kubernetes.io/gpu\"",
                                "must be a valid extended resource name")),
                row("selectors of the wrong JSON type", with(VALID, "/spec/selectors", "'all'"),
                        Expect.error(Type.TYPE_INVALID, "spec.selectors", "\"all\"", "must be of type array")));
    }

    @ParameterizedTest
    @MethodSource("createCases")
    void validatesCreate(ObjectNode object, List<Expect> expected) {
        assertErrors(validator.validateCreate(object), expected.toArray(Expect[]::new));
    }

    @Test
    void storedSelectorsAndConfigsAreNotCheckedAgainOnUpdate() {
        ObjectNode stored = with(with(VALID, "/spec/selectors/0/cel/expression", "'bad'"),
                "/spec/config/0/opaque/parameters", "{data: '" + "x".repeat(10240) + "'}");
        ObjectNode relabelled = with(stored, "/metadata/labels", "{team: 'a'}");

        assertErrors(validator.validateUpdate(relabelled, stored));
    }

    @Test
    void failingCelCheckerIsReportedAsInternalError() {
        DeviceClassValidator failing = new DeviceClassValidator(expression -> {
            throw new IllegalStateException("environment not loaded");
        });

        assertErrors(failing.validateCreate(VALID), Expect.error(Type.INTERNAL, "spec.selectors[0].cel.expression",
                null, "checking the CEL expression failed: java.lang.IllegalStateException: environment not loaded"));
    }

    @Test
    void changedSelectorsAreCheckedOnUpdate() {
        ObjectNode changed = with(VALID, "/spec/selectors/-", "{cel: {expression: 'bad'}}");

        assertErrors(validator.validateUpdate(changed, VALID),
                invalid("spec.selectors[1].cel.expression", "\"bad\"",
                        "compilation failed: ERROR: <input>:1:1: undeclared reference to 'bad'"));
    }
}
