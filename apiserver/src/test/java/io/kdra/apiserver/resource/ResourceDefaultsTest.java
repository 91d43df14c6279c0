package io.kdra.apiserver.resource;

import static io.kdra.apiserver.resource.TestJson.object;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

class ResourceDefaultsTest {

    private static final Clock CLOCK = Clock.fixed(Instant.parse("2025-06-01T10:00:00.750Z"), ZoneOffset.UTC);

    private final Map<String, UnaryOperator<ObjectNode>> defaulters = ResourceKinds.defaulters(CLOCK);

    @Test
    void exactRequestsAndSubrequestsGetModeCountAndOperator() {
        ObjectNode claim = object("""
                {apiVersion: 'resource.k8s.io/v1', kind: 'ResourceClaim', spec: {devices: {requests: [
                  {name: 'a', exactly: {deviceClassName: 'c', tolerations: [{key: 'k'}]}},
                  {name: 'b', exactly: {deviceClassName: 'c', allocationMode: 'All'}},
                  {name: 'c', exactly: {deviceClassName: 'c', count: 3}},
                  {name: 'd', firstAvailable: [{name: 's', deviceClassName: 'c'}]}]}}}""");

        ObjectNode defaulted = defaulters.get("ResourceClaim").apply(claim);

        assertThat(defaulted.at("/spec/devices/requests")).isEqualTo(TestJson.parse("""
                [{name: 'a', exactly: {deviceClassName: 'c', tolerations: [{key: 'k', operator: 'Equal'}],
                                       allocationMode: 'ExactCount', count: 1}},
                 {name: 'b', exactly: {deviceClassName: 'c', allocationMode: 'All'}},
                 {name: 'c', exactly: {deviceClassName: 'c', count: 3, allocationMode: 'ExactCount'}},
                 {name: 'd', firstAvailable: [{name: 's', deviceClassName: 'c', allocationMode: 'ExactCount',
                                               count: 1}]}]"""));
        assertThat(claim.at("/spec/devices/requests/0/exactly/allocationMode").isMissingNode()).isTrue();
    }

    @Test
    void v1beta1RequestsWithoutClassAreLeftForSubrequests() {
        ObjectNode template = object("""
                {apiVersion: 'resource.k8s.io/v1beta1', kind: 'ResourceClaimTemplate', spec: {spec: {devices: {
                  requests: [{name: 'a', deviceClassName: 'c'},
                             {name: 'b', tolerations: [{operator: 'Exists'}, {key: 'k'}],
                              firstAvailable: [{name: 's', deviceClassName: 'c', allocationMode: 'All'}]}]}}}}""");

        ObjectNode defaulted = defaulters.get("ResourceClaimTemplate").apply(template);

        assertThat(defaulted.at("/spec/spec/devices/requests")).isEqualTo(TestJson.parse("""
                [{name: 'a', deviceClassName: 'c', allocationMode: 'ExactCount', count: 1},
                 {name: 'b', tolerations: [{operator: 'Exists'}, {key: 'k', operator: 'Equal'}],
                  firstAvailable: [{name: 's', deviceClassName: 'c', allocationMode: 'All'}]}]"""));
    }

    @Test
    void allocatedTolerationsGetTheirOperator() {
        ObjectNode claim = object("""
                {apiVersion: 'resource.k8s.io/v1', kind: 'ResourceClaim', status: {allocation: {devices: {results: [
                  {request: 'a', tolerations: [{key: 'k'}]}]}}}}""");

        ObjectNode defaulted = defaulters.get("ResourceClaim").apply(claim);

        assertThat(defaulted.at("/status/allocation/devices/results/0/tolerations/0/operator").stringValue())
                .isEqualTo("Equal");
    }

    @Test
    void newDeviceTaintsAreStampedInWholeSeconds() {
        ObjectNode v1 = object("""
                {apiVersion: 'resource.k8s.io/v1', kind: 'ResourceSlice', spec: {devices: [
                  {name: 'd', taints: [{key: 'k', effect: 'NoSchedule'},
                                       {key: 'old', effect: 'None', timeAdded: '2024-01-01T00:00:00Z'}]}]}}""");
        ObjectNode v1beta1 = object("""
                {apiVersion: 'resource.k8s.io/v1beta1', kind: 'ResourceSlice', spec: {devices: [
                  {name: 'd', basic: {taints: [{key: 'k', effect: 'NoSchedule'}]}}]}}""");

        assertThat(defaulters.get("ResourceSlice").apply(v1).at("/spec/devices/0/taints")).isEqualTo(TestJson.parse("""
                [{key: 'k', effect: 'NoSchedule', timeAdded: '2025-06-01T10:00:00Z'},
                 {key: 'old', effect: 'None', timeAdded: '2024-01-01T00:00:00Z'}]"""));
        assertThat(defaulters.get("ResourceSlice").apply(v1beta1).at("/spec/devices/0/basic/taints/0/timeAdded")
                .stringValue()).isEqualTo("2025-06-01T10:00:00Z");
    }

    @Test
    void taintRuleTaintIsStamped() {
        ObjectNode rule = object("{apiVersion: 'resource.k8s.io/v1alpha3', kind: 'DeviceTaintRule', "
                + "spec: {taint: {key: 'k', effect: 'NoExecute'}}}");

        assertThat(defaulters.get("DeviceTaintRule").apply(rule).at("/spec/taint/timeAdded").stringValue())
                .isEqualTo("2025-06-01T10:00:00Z");
    }

    @Test
    void deviceClassesHaveNoDefaults() {
        ObjectNode deviceClass = object("{apiVersion: 'resource.k8s.io/v1', kind: 'DeviceClass', spec: {}}");

        assertThat(defaulters.get("DeviceClass").apply(deviceClass)).isEqualTo(deviceClass);
    }
}
