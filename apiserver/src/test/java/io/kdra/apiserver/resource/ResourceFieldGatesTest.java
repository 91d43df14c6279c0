package io.kdra.apiserver.resource;

import static org.assertj.core.api.Assertions.assertThat;

import io.kdra.apiserver.api.DisabledFields;
import io.kdra.apiserver.json.Json;
import io.kdra.kube.FeatureGates;
import io.kdra.kube.KubernetesVersion;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** The fields of disabled features are dropped on create, and kept on update while the stored object uses them. */
class ResourceFieldGatesTest {

    private static final FeatureGates V1_34 = FeatureGates.defaults(new KubernetesVersion(1, 34));
    /** 1.35 has every gated feature off by default but these three, which are not locked yet. */
    private static final FeatureGates ALL_OFF = FeatureGates.parse(new KubernetesVersion(1, 35),
            "DRAAdminAccess=false,DRAPrioritizedList=false,DRAResourceClaimDeviceStatus=false");

    private static final String CLAIM = """
            {"spec":{"devices":{
               "requests":[
                 {"name":"a","exactly":{"deviceClassName":"c","adminAccess":true,
                   "tolerations":[{"key":"k","operator":"Exists"}],"capacity":{"requests":{"mem":"1Gi"}}}},
                 {"name":"b","firstAvailable":[{"name":"x","deviceClassName":"c",
                   "tolerations":[{"key":"k","operator":"Exists"}]}]}],
               "constraints":[{"requests":["a"],"distinctAttribute":"dra.example.com/id"}]}},
             "status":{"allocation":{"devices":{"results":[{"request":"a","driver":"d","pool":"p","device":"x",
                 "adminAccess":true,"tolerations":[{"key":"k","operator":"Exists"}],"shareID":"s",
                 "consumedCapacity":{"mem":"1Gi"},"bindingConditions":["ready"],"bindingFailureConditions":["bad"]}]}},
               "devices":[{"driver":"d","pool":"p","device":"x","shareID":"s"}]}}""";

    private static final String SLICE = """
            {"spec":{"driver":"d","perDeviceNodeSelection":true,
               "sharedCounters":[{"name":"set","counters":{"mem":{"value":"1Gi"}}}],
               "devices":[{"name":"x","nodeName":"n","taints":[{"key":"k","effect":"NoSchedule"}],
                 "consumesCounters":[{"counterSet":"set","counters":{"mem":{"value":"1Gi"}}}],
                 "bindsToNode":true,"bindingConditions":["ready"],"bindingFailureConditions":["bad"],
                 "allowMultipleAllocations":true,
                 "capacity":{"mem":{"value":"1Gi","requestPolicy":{"default":"1Gi"}}}}]}}""";

    @Test
    void everyGatedClaimFieldIsDroppedOnCreateWhenItsGateIsOff() {
        ObjectNode claim = json(CLAIM);

        dropper(ALL_OFF, ResourceKinds.RESOURCE_CLAIM).drop(claim, null);

        assertThat(claim).isEqualTo(json("""
                {"spec":{"devices":{
                   "requests":[{"name":"a","exactly":{"deviceClassName":"c"}},{"name":"b"}],
                   "constraints":[{"requests":["a"]}]}},
                 "status":{"allocation":{"devices":{"results":[{"request":"a","driver":"d","pool":"p",
                   "device":"x"}]}}}}"""));
    }

    @Test
    void everyGatedSliceFieldIsDroppedOnCreateWhenItsGateIsOff() {
        ObjectNode slice = json(SLICE);

        dropper(ALL_OFF, ResourceKinds.RESOURCE_SLICE).drop(slice, null);

        assertThat(slice).isEqualTo(json("""
                {"spec":{"driver":"d","devices":[{"name":"x","capacity":{"mem":{"value":"1Gi"}}}]}}"""));
    }

    @Test
    void aFieldTheStoredObjectUsesIsKeptOnUpdate() {
        ObjectNode old = json(SLICE);
        ObjectNode updated = json(SLICE);

        dropper(ALL_OFF, ResourceKinds.RESOURCE_SLICE).drop(updated, old);

        assertThat(updated).isEqualTo(json(SLICE));
    }

    @Test
    void onlyTheFeaturesTheStoredObjectUsesAreKept() {
        ObjectNode old = json("""
                {"spec":{"driver":"d","devices":[{"name":"x","taints":[{"key":"k","effect":"NoSchedule"}]}]}}""");
        ObjectNode updated = json(SLICE);

        dropper(ALL_OFF, ResourceKinds.RESOURCE_SLICE).drop(updated, old);

        assertThat(updated).isEqualTo(json("""
                {"spec":{"driver":"d","devices":[{"name":"x","taints":[{"key":"k","effect":"NoSchedule"}],
                   "capacity":{"mem":{"value":"1Gi"}}}]}}"""));
    }

    @Test
    void enabledGatesDropNothing() {
        FeatureGates all = FeatureGates.parse(new KubernetesVersion(1, 36), "DRADeviceTaintRules=true");
        for (String kind : ResourceKinds.disabledFields(all).keySet()) {
            ObjectNode object = json(kind.equals(ResourceKinds.RESOURCE_SLICE) ? SLICE : CLAIM);
            ObjectNode before = object.deepCopy();

            dropper(all, kind).drop(object, null);

            assertThat(object).as(kind).isEqualTo(before);
        }
    }

    @Test
    void kubernetes134DefaultsDropTheFieldsOfItsAlphaFeatures() {
        ObjectNode slice = json(SLICE);
        ObjectNode deviceClass = json("""
                {"spec":{"selectors":[],"extendedResourceName":"example.com/gpu"}}""");

        dropper(V1_34, ResourceKinds.RESOURCE_SLICE).drop(slice, null);
        dropper(V1_34, ResourceKinds.DEVICE_CLASS).drop(deviceClass, null);

        assertThat(slice.at("/spec/devices/0")).isEqualTo(json("""
                {"name":"x","capacity":{"mem":{"value":"1Gi"}}}"""));
        assertThat(deviceClass).isEqualTo(json("""
                {"spec":{"selectors":[]}}"""));
    }

    @Test
    void templatesDropTheClaimSpecFields() {
        ObjectNode template = json("""
                {"spec":{"spec":{"devices":{"requests":[{"name":"a","exactly":{"deviceClassName":"c",
                  "adminAccess":true}}]}}}}""");

        dropper(ALL_OFF, ResourceKinds.RESOURCE_CLAIM_TEMPLATE).drop(template, null);

        assertThat(template.at("/spec/spec/devices/requests/0/exactly"))
                .isEqualTo(json("{\"deviceClassName\":\"c\"}"));
    }

    private static DisabledFields dropper(FeatureGates gates, String kind) {
        return ResourceKinds.disabledFields(gates).get(kind);
    }

    private static ObjectNode json(String text) {
        JsonNode node = Json.parse(text.getBytes(StandardCharsets.UTF_8));
        return (ObjectNode) node;
    }
}
