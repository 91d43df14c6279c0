package io.kdra.e2e;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.kdra.framework.DraSpec;
import io.kdra.framework.Framework;
import io.kdra.framework.conformance.ResourceTestcase;
import io.kdra.framework.conformance.ResourceTestcase.Patch;
import io.kdra.framework.conformance.ResourceTestcase.PatchKind;
import io.kdra.framework.conformance.TestResource;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** dra.go group A: conformance CRUD of the resource.k8s.io kinds through the API alone. */
@DraSpec
@DisplayName("[sig-node] [DRA] CRUD Tests")
@Tag("sig-node")
@Tag("DRA")
class CrudSpecs {

    private static final String LABEL_PATCH = "{\"metadata\": {\"labels\": {\"test.dra.example.com\": \"test\"}}}";

    final Framework f = Framework.create("dra");

    @Test
    @DisplayName("resource.k8s.io/v1 DeviceClass [Conformance]")
    @Tag("Conformance")
    void deviceClass() throws Exception {
        TestResource.run(f, new ResourceTestcase("resource.k8s.io/v1", "DeviceClass", "deviceclasses", false,
                object("{\"spec\": {\"selectors\": [{\"cel\": {\"expression\": \"false\"}}]}}"),
                existing -> withSpec(existing, "selectors",
                        List.of(Map.of("cel", Map.of("expression", "1 == 0")))),
                null,
                List.of(new Patch(PatchKind.STRATEGIC_MERGE,
                        "{\"spec\": {\"selectors\": [{\"cel\": {\"expression\": \"1 == 0\"}}]}}")),
                List.of()));
    }

    @Test
    @DisplayName("resource.k8s.io/v1 DeviceTaintRule [Conformance]")
    @Tag("Conformance")
    void deviceTaintRule() throws Exception {
        String lastTransitionTime = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
        Map<String, Object> condition = Map.of("type", "Testing", "status", "True",
                "lastTransitionTime", lastTransitionTime, "reason", "E2E_test_running",
                "message", "This condition can be ignored.");
        TestResource.run(f, new ResourceTestcase("resource.k8s.io/v1", "DeviceTaintRule", "devicetaintrules", false,
                // no device selector: the rule selects no devices, so the spec is harmless
                object("{\"spec\": {\"taint\": {\"key\": \"testing\", \"effect\": \"None\"}}}"),
                existing -> withSpec(existing, "taint", Map.of("key", "testing", "effect", "NoExecute")),
                existing -> {
                    Map<String, Object> status = mapOf(existing.getAdditionalProperties().get("status"));
                    List<Object> conditions = new ArrayList<>(listOf(status.get("conditions")));
                    conditions.add(condition);
                    status.put("conditions", conditions);
                    existing.setAdditionalProperty("status", status);
                    return existing;
                },
                List.of(new Patch(PatchKind.STRATEGIC_MERGE, "{\"spec\": {\"taint\": {\"effect\": \"NoExecute\"}}}")),
                List.of(new Patch(PatchKind.STRATEGIC_MERGE,
                        "{\"status\": {\"conditions\": [" + Serialization.asJson(condition) + "]}}"))));
    }

    @Test
    @DisplayName("resource.k8s.io/v1 ResourceClaim [Conformance]")
    @Tag("Conformance")
    void resourceClaim() throws Exception {
        String allocation = "{\"status\": {\"allocation\": {}}}";
        TestResource.run(f, new ResourceTestcase("resource.k8s.io/v1", "ResourceClaim", "resourceclaims", true,
                object("{\"spec\": {\"devices\": {\"requests\": [{\"name\": \"req-0\", "
                        + "\"exactly\": {\"deviceClassName\": \"dra.example.com\"}}]}}}"),
                CrudSpecs::withTestLabel,
                existing -> {
                    // "nothing allocated" is a valid allocation result
                    Map<String, Object> status = mapOf(existing.getAdditionalProperties().get("status"));
                    status.put("allocation", Map.of());
                    existing.setAdditionalProperty("status", status);
                    return existing;
                },
                List.of(new Patch(PatchKind.APPLY, LABEL_PATCH), new Patch(PatchKind.STRATEGIC_MERGE, LABEL_PATCH),
                        new Patch(PatchKind.JSON_MERGE, LABEL_PATCH),
                        new Patch(PatchKind.JSON, "[{\"op\": \"add\", \"path\": "
                                + "\"/metadata/labels/test.dra.example.com\", \"value\": \"test\"}]")),
                List.of(new Patch(PatchKind.APPLY, allocation), new Patch(PatchKind.STRATEGIC_MERGE, allocation),
                        new Patch(PatchKind.JSON_MERGE, allocation),
                        new Patch(PatchKind.JSON, "[{\"op\": \"add\", \"path\": \"/status/allocation\", "
                                + "\"value\": {}}]"))));
    }

    @Test
    @DisplayName("resource.k8s.io/v1 ResourceClaimTemplate [Conformance]")
    @Tag("Conformance")
    void resourceClaimTemplate() throws Exception {
        TestResource.run(f, new ResourceTestcase("resource.k8s.io/v1", "ResourceClaimTemplate",
                "resourceclaimtemplates", true,
                object("{\"spec\": {\"spec\": {\"devices\": {\"requests\": [{\"name\": \"req-0\", "
                        + "\"exactly\": {\"deviceClassName\": \"dra.example.com\"}}]}}}}"),
                CrudSpecs::withTestLabel, null,
                List.of(new Patch(PatchKind.STRATEGIC_MERGE, LABEL_PATCH)), List.of()));
    }

    @Test
    @DisplayName("resource.k8s.io/v1 ResourceSlice [Conformance]")
    @Tag("Conformance")
    void resourceSlice() throws Exception {
        TestResource.run(f, new ResourceTestcase("resource.k8s.io/v1", "ResourceSlice", "resourceslices", false,
                // the pool is empty: no devices
                object("{\"spec\": {\"driver\": \"dra.example.com\", \"pool\": {\"name\": \"cluster\", "
                        + "\"generation\": 1, \"resourceSliceCount\": 1}, \"nodeName\": \"no-such-node\"}}"),
                existing -> withSpec(existing, "devices", List.of(Map.of("name", "device-0"))),
                null,
                List.of(new Patch(PatchKind.STRATEGIC_MERGE, "{\"spec\": {\"devices\": [{\"name\": \"device-0\"}]}}")),
                List.of()));
    }

    @Test
    @DisplayName("resource.k8s.io/v1alpha3 ResourcePoolStatusRequest [FeatureGate:DRAResourcePoolStatus] [Alpha] "
            + "[Feature:OffByDefault] [FeatureGate:DynamicResourceAllocation]")
    @Tag("FeatureGate:DRAResourcePoolStatus")
    @Tag("Alpha")
    @Tag("Feature:OffByDefault")
    @Tag("FeatureGate:DynamicResourceAllocation")
    void resourcePoolStatusRequest() throws Exception {
        // the spec is immutable, so updates and patches add a label; no status step ("needs to be added before
        // graduation" upstream)
        TestResource.run(f, new ResourceTestcase("resource.k8s.io/v1alpha3", "ResourcePoolStatusRequest",
                "resourcepoolstatusrequests", false, object("{\"spec\": {\"driver\": \"dra.example.com\"}}"),
                CrudSpecs::withTestLabel, null, List.of(new Patch(PatchKind.STRATEGIC_MERGE, LABEL_PATCH)),
                List.of()));
    }

    private static GenericKubernetesResource object(String json) {
        return Serialization.unmarshal(json, GenericKubernetesResource.class);
    }

    private static GenericKubernetesResource withSpec(GenericKubernetesResource object, String field, Object value) {
        Map<String, Object> spec = mapOf(object.getAdditionalProperties().get("spec"));
        spec.put(field, value);
        object.setAdditionalProperty("spec", spec);
        return object;
    }

    /** The spec is immutable, so the update adds a label instead. */
    private static GenericKubernetesResource withTestLabel(GenericKubernetesResource object) {
        Map<String, String> labels = new HashMap<>(object.getMetadata().getLabels());
        labels.put("test.dra.example.com", "test");
        object.getMetadata().setLabels(labels);
        return object;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> mapOf(Object value) {
        return value == null ? new HashMap<>() : new HashMap<>((Map<String, Object>) value);
    }

    @SuppressWarnings("unchecked")
    private static List<Object> listOf(Object value) {
        return value == null ? List.of() : (List<Object>) value;
    }
}
