package io.kdra.apiserver.resource;

import static io.kdra.apiserver.resource.Expect.assertErrors;
import static io.kdra.apiserver.resource.Expect.invalid;
import static io.kdra.apiserver.resource.TestJson.object;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

/** The order a write goes through: defaults in the version sent, conversion to storage, validation. */
class ResourceKindsTest {

    private static ObjectNode store(ObjectNode sent) {
        String kind = sent.get("kind").stringValue();
        ObjectNode defaulted = ResourceKinds.defaulters(Clock.systemUTC()).get(kind).apply(sent);
        return ResourceKinds.converters().get(kind).convert(defaulted, ResourceKinds.storageVersion(kind));
    }

    @Test
    void minimalV1beta1ClaimIsDefaultedConvertedAndValid() {
        ObjectNode sent = object("{apiVersion: 'resource.k8s.io/v1beta1', kind: 'ResourceClaim', "
                + "metadata: {name: 'c'}, spec: {devices: {requests: [{name: 'gpu', deviceClassName: 'gpu'}]}}}");

        ObjectNode stored = store(sent);

        assertThat(stored.at("/spec/devices/requests/0")).isEqualTo(TestJson.parse(
                "{name: 'gpu', exactly: {deviceClassName: 'gpu', allocationMode: 'ExactCount', count: 1}}"));
        assertErrors(ResourceKinds.validators(expression -> Optional.empty()).get("ResourceClaim")
                .validateCreate(stored));
    }

    @Test
    void errorsInAV1beta1ClaimNameTheStorageVersionsFields() {
        ObjectNode sent = object("{apiVersion: 'resource.k8s.io/v1beta1', kind: 'ResourceClaim', "
                + "spec: {devices: {requests: [{name: 'gpu', deviceClassName: 'gpu', count: -1}]}}}");

        assertErrors(ResourceKinds.validators(expression -> Optional.empty()).get("ResourceClaim")
                        .validateCreate(store(sent)),
                invalid("spec.devices.requests[0].exactly.count", "-1", "must be greater than zero"));
    }

    @Test
    void deviceTaintRulesAreStoredAsV1() {
        ObjectNode sent = object("{apiVersion: 'resource.k8s.io/v1alpha3', kind: 'DeviceTaintRule', "
                + "spec: {taint: {key: 'k', effect: 'NoSchedule'}}}");

        ObjectNode stored = store(sent);

        assertThat(stored.get("apiVersion").stringValue()).isEqualTo("resource.k8s.io/v1");
        assertThat(stored.at("/spec/taint/timeAdded").isString()).isTrue();
    }
}
