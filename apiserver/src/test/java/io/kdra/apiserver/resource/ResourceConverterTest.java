package io.kdra.apiserver.resource;

import static io.kdra.apiserver.resource.TestJson.object;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kdra.apiserver.conversion.VersionConverter;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

/** Bad input to the converters, and what every converter does whatever the kind. */
class ResourceConverterTest {

    private final VersionConverter claims = ResourceKinds.converters().get("ResourceClaim");
    private final VersionConverter taintRules = ResourceKinds.converters().get("DeviceTaintRule");

    @Test
    void rejectsAnObjectWithoutApiVersion() {
        assertThatThrownBy(() -> claims.convert(object("{kind: 'ResourceClaim'}"), "v1"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("ResourceClaim to convert has no apiVersion");
    }

    @Test
    void rejectsAnUnservedSourceVersion() {
        assertThatThrownBy(() -> claims.convert(object("{apiVersion: 'resource.k8s.io/v1alpha3'}"), "v1"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("apiVersion resource.k8s.io/v1alpha3 is not served for ResourceClaim; served are "
                        + "resource.k8s.io/v1beta1, resource.k8s.io/v1beta2, resource.k8s.io/v1");
    }

    @Test
    void rejectsAnotherGroup() {
        assertThatThrownBy(() -> claims.convert(object("{apiVersion: 'v1', kind: 'ResourceClaim'}"), "v1"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("apiVersion v1 is not served for ResourceClaim");
    }

    @Test
    void rejectsAnUnservedTargetVersion() {
        assertThatThrownBy(() -> taintRules.convert(object("{apiVersion: 'resource.k8s.io/v1beta2'}"), "v1beta1"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("apiVersion resource.k8s.io/v1beta1 is not served for DeviceTaintRule; served are "
                        + "resource.k8s.io/v1alpha3, resource.k8s.io/v1beta2, resource.k8s.io/v1");
    }

    @Test
    void rejectsAnotherKind() {
        assertThatThrownBy(() -> claims.convert(object("{apiVersion: 'resource.k8s.io/v1', kind: 'DeviceClass'}"),
                "v1beta1"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("cannot convert a \"DeviceClass\" with the ResourceClaim converter");
    }

    @Test
    void sameVersionGivesAnEqualCopy() {
        ObjectNode claim = object("{apiVersion: 'resource.k8s.io/v1', kind: 'ResourceClaim', spec: {}}");

        ObjectNode converted = claims.convert(claim, "v1");

        assertThat(converted).isEqualTo(claim).isNotSameAs(claim);
    }

    @Test
    void malformedStructureIsLeftForValidation() {
        ObjectNode claim = object("{apiVersion: 'resource.k8s.io/v1beta1', kind: 'ResourceClaim', "
                + "spec: {devices: {requests: ['not an object', 7]}}}");

        ObjectNode converted = claims.convert(claim, "v1");

        assertThat(converted.at("/spec/devices")).isEqualTo(claim.at("/spec/devices"));
        assertThat(converted.get("apiVersion").stringValue()).isEqualTo("resource.k8s.io/v1");
    }

    @Test
    void everyKindHasAConverterAndAValidator() {
        assertThat(ResourceKinds.converters().keySet()).containsExactlyInAnyOrder("DeviceClass", "ResourceClaim",
                "ResourceClaimTemplate", "ResourceSlice", "DeviceTaintRule");
        assertThat(ResourceKinds.validators(expression -> java.util.Optional.empty()).keySet())
                .as("ResourcePoolStatusRequest is served in one version only")
                .containsExactlyInAnyOrderElementsOf(java.util.stream.Stream.concat(
                        ResourceKinds.converters().keySet().stream(), java.util.stream.Stream.of(
                                ResourceKinds.RESOURCE_POOL_STATUS_REQUEST)).toList());
    }
}
