package io.kdra.apiserver.resource;

import static io.kdra.apiserver.resource.Expect.assertErrors;
import static io.kdra.apiserver.resource.Expect.invalid;
import static io.kdra.apiserver.resource.Expect.required;
import static io.kdra.apiserver.resource.TestJson.object;
import static io.kdra.apiserver.resource.TestJson.with;
import static io.kdra.apiserver.resource.TestJson.without;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

class ResourcePoolStatusRequestValidatorTest {

    private static final ObjectNode VALID = object("""
            {apiVersion: 'resource.k8s.io/v1alpha3', kind: 'ResourcePoolStatusRequest', metadata: {name: 'r'},
             spec: {driver: 'gpu.example.com', poolName: 'node-1', limit: 10}}""");

    private final ResourcePoolStatusRequestValidator validator =
            new ResourcePoolStatusRequestValidator(Messages::fakeCel);

    @Test
    void specNeedsADriverAndALimitWithinBounds() {
        assertErrors(validator.validateCreate(VALID));
        assertErrors(validator.validateCreate(without(VALID, "/spec/poolName")));
        assertErrors(validator.validateCreate(without(VALID, "/spec/driver")),
                required("spec.driver", "driver name is required"));
        assertErrors(validator.validateCreate(with(VALID, "/spec/driver", "'gpu_x'")),
                invalid("spec.driver", "\"gpu_x\"", Messages.DNS_SUBDOMAIN));
        assertErrors(validator.validateCreate(with(VALID, "/spec/limit", "0")),
                invalid("spec.limit", "0", "must be at least 1"));
        assertErrors(validator.validateCreate(with(VALID, "/spec/limit", "1001")),
                invalid("spec.limit", "1001", "must not exceed 1000"));
    }

    @Test
    void specIsImmutableAndStatusOnceWritten() {
        assertErrors(validator.validateUpdate(with(VALID, "/metadata/labels", "{a: 'b'}"), VALID));
        assertErrors(validator.validateUpdate(with(VALID, "/spec/limit", "5"), VALID),
                invalid("spec", "{\"driver\":\"gpu.example.com\",\"poolName\":\"node-1\",\"limit\":5}",
                        "field is immutable"));
        ObjectNode written = with(VALID, "/status", "{poolCount: 0}");
        assertErrors(validator.validateStatusUpdate(written, VALID));
        assertErrors(validator.validateStatusUpdate(with(VALID, "/status", "{poolCount: 1}"), written),
                invalid("status", "{\"poolCount\":1}", "field is immutable"));
    }
}
