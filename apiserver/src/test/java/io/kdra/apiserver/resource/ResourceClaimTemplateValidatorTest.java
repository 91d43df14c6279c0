package io.kdra.apiserver.resource;

import static io.kdra.apiserver.resource.Expect.assertErrors;
import static io.kdra.apiserver.resource.Expect.forbidden;
import static io.kdra.apiserver.resource.Expect.invalid;
import static io.kdra.apiserver.resource.Expect.required;
import static io.kdra.apiserver.resource.Expect.row;
import static io.kdra.apiserver.resource.Expect.tooLong;
import static io.kdra.apiserver.resource.TestJson.object;
import static io.kdra.apiserver.resource.TestJson.with;

import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.node.ObjectNode;

class ResourceClaimTemplateValidatorTest {

    private static final ObjectNode VALID = object("""
            {apiVersion: 'resource.k8s.io/v1', kind: 'ResourceClaimTemplate', metadata: {name: 't', namespace: 'ns'},
             spec: {metadata: {labels: {app: 'demo'}, annotations: {'example.com/note': 'copied'}},
                    spec: {devices: {requests: [{name: 'gpu', exactly: {deviceClassName: 'gpu.example.com',
                                                                         allocationMode: 'ExactCount', count: 1}}]}}}}""");

    private final ResourceClaimTemplateValidator validator = new ResourceClaimTemplateValidator(Messages::fakeCel);

    static Stream<Arguments> createCases() {
        return Expect.rows(
                row("valid", VALID),
                row("claim spec is checked like a claim's", with(VALID, "/spec/spec/devices/requests/0/name", "'GPU'"),
                        invalid("spec.spec.devices.requests[0].name", "\"GPU\"", Messages.DNS_LABEL)),
                row("request without device class", with(VALID, "/spec/spec/devices/requests/0/exactly",
                                "{allocationMode: 'All'}"),
                        required("spec.spec.devices.requests[0].exactly.deviceClassName", "")),
                row("template metadata with a name", with(VALID, "/spec/metadata/name", "'claim'"),
                        forbidden("spec.metadata.name", "cannot be set")),
                row("template metadata with uid and finalizers", with(with(VALID, "/spec/metadata/uid", "'u'"),
                                "/spec/metadata/finalizers", "['f']"),
                        forbidden("spec.metadata.uID", "cannot be set"),
                        forbidden("spec.metadata.finalizers", "cannot be set")),
                row("label key not a qualified name", with(VALID, "/spec/metadata/labels", "{'-app': 'demo'}"),
                        invalid("spec.metadata.labels", "\"-app\"", Messages.QUALIFIED_NAME_PART)),
                row("label value invalid", with(VALID, "/spec/metadata/labels/app", "'a b'"),
                        invalid("spec.metadata.labels", "\"a b\"", Messages.LABEL_VALUE)),
                row("annotation key invalid", with(VALID, "/spec/metadata/annotations", "{'a/b/c': 'x'}"),
                        invalid("spec.metadata.annotations", "\"a/b/c\"", "a qualified name must consist of "
                                + "alphanumeric characters, '-', '_' or '.', and must start and end with an "
                                + "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used "
                                + "for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS "
                                + "subdomain prefix and '/' (e.g. 'example.com/MyName')")),
                row("annotations too large", with(VALID, "/spec/metadata/annotations/big",
                                "'" + "x".repeat(256 * 1024) + "'"),
                        tooLong("spec.metadata.annotations", 262144)));
    }

    @ParameterizedTest
    @MethodSource("createCases")
    void validatesCreate(ObjectNode object, List<Expect> expected) {
        assertErrors(validator.validateCreate(object), expected.toArray(Expect[]::new));
    }

    @Test
    void specIsImmutable() {
        ObjectNode changed = with(VALID, "/spec/metadata/labels/app", "'other'");

        assertErrors(validator.validateUpdate(changed, VALID),
                invalid("spec", changed.get("spec").toString(), Messages.IMMUTABLE));
    }

    @Test
    void metadataOfTheTemplateItselfMayChange() {
        assertErrors(validator.validateUpdate(with(VALID, "/metadata/annotations", "{a: 'b'}"), VALID));
    }
}
