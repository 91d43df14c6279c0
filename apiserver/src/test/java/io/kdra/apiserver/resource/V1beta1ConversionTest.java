package io.kdra.apiserver.resource;

import static io.kdra.apiserver.resource.TestJson.object;
import static org.assertj.core.api.Assertions.assertThat;

import io.kdra.apiserver.conversion.VersionConverter;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

/** v1beta1 ↔ v1 cases that have no exact counterpart, converted as upstream's conversion functions do. */
class V1beta1ConversionTest {

    private final VersionConverter claims = ResourceKinds.converters().get("ResourceClaim");
    private final VersionConverter slices = ResourceKinds.converters().get("ResourceSlice");

    @Test
    void deviceWithoutBasicGainsAnEmptyBasicOnTheWayBack() {
        ObjectNode v1beta1 = slice("resource.k8s.io/v1beta1", "{nodeName: 'n', devices: [{name: 'd'}]}");

        ObjectNode v1 = slices.convert(v1beta1, "v1");
        ObjectNode back = slices.convert(v1, "v1beta1");

        assertThat(v1.at("/spec/devices/0")).isEqualTo(object("{name: 'd'}"));
        assertThat(back.at("/spec/devices/0")).isEqualTo(object("{name: 'd', basic: {}}"));
    }

    @Test
    void emptyMapsAndListsOfADeviceAreDropped() {
        ObjectNode v1 = slice("resource.k8s.io/v1",
                "{nodeName: 'n', devices: [{name: 'd', attributes: {}, capacity: {}, taints: [], "
                        + "bindingConditions: [], bindsToNode: false}]}");

        ObjectNode v1beta1 = slices.convert(v1, "v1beta1");

        assertThat(v1beta1.at("/spec/devices/0")).isEqualTo(object("{name: 'd', basic: {bindsToNode: false}}"));
    }

    @Test
    void unsetNodeSelectionValuesAreDropped() {
        ObjectNode v1 = slice("resource.k8s.io/v1", "{nodeName: '', allNodes: false, devices: []}");
        ObjectNode v1beta1 = slice("resource.k8s.io/v1beta1", "{nodeName: '', allNodes: false, devices: []}");

        assertThat(slices.convert(v1, "v1beta1").get("spec")).isEqualTo(object("{devices: []}"));
        assertThat(slices.convert(v1beta1, "v1").get("spec")).isEqualTo(object("{devices: []}"));
    }

    @Test
    void anyExactFieldMakesAnExactRequestEvenNextToSubrequests() {
        ObjectNode v1beta1 = claim("resource.k8s.io/v1beta1", "{name: 'r', count: 2, "
                + "firstAvailable: [{name: 's', deviceClassName: 'c'}]}");

        ObjectNode v1 = claims.convert(v1beta1, "v1");

        assertThat(v1.at("/spec/devices/requests/0")).isEqualTo(object("{name: 'r', "
                + "exactly: {deviceClassName: '', count: 2}, firstAvailable: [{name: 's', deviceClassName: 'c'}]}"));
    }

    @Test
    void emptySelectorsStillMakeAnExactRequestButAreNotKept() {
        ObjectNode v1beta1 = claim("resource.k8s.io/v1beta1", "{name: 'r', selectors: [], tolerations: []}");

        ObjectNode v1 = claims.convert(v1beta1, "v1");

        assertThat(v1.at("/spec/devices/requests/0")).isEqualTo(object("{name: 'r', exactly: {deviceClassName: ''}}"));
    }

    @Test
    void requestWithNeitherShapeKeepsOnlyItsName() {
        ObjectNode v1 = claim("resource.k8s.io/v1", "{name: 'r'}");

        ObjectNode v1beta1 = claims.convert(v1, "v1beta1");

        assertThat(v1beta1.at("/spec/devices/requests/0")).isEqualTo(object("{name: 'r', deviceClassName: ''}"));
        assertThat(claims.convert(v1beta1, "v1").at("/spec/devices/requests/0")).isEqualTo(object("{name: 'r'}"));
    }

    @Test
    void unknownFieldsStayWhereTheyAre() {
        ObjectNode v1 = claim("resource.k8s.io/v1", "{name: 'r', future: 1, exactly: {deviceClassName: 'c', "
                + "allocationMode: 'All', futureExact: 2}}");

        ObjectNode v1beta1 = claims.convert(v1, "v1beta1");

        assertThat(v1beta1.at("/spec/devices/requests/0")).isEqualTo(object("{name: 'r', deviceClassName: 'c', "
                + "allocationMode: 'All', future: 1}"));
    }

    private static ObjectNode slice(String apiVersion, String spec) {
        return object("{apiVersion: '" + apiVersion + "', kind: 'ResourceSlice', spec: " + spec + "}");
    }

    private static ObjectNode claim(String apiVersion, String request) {
        return object("{apiVersion: '" + apiVersion + "', kind: 'ResourceClaim', spec: {devices: {requests: ["
                + request + "]}}}");
    }
}
