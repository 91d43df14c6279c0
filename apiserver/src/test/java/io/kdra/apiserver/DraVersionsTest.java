package io.kdra.apiserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.StatusCause;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.kdra.apiserver.json.Json;
import io.kdra.apiserver.resource.GoldenObjects;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The resource.k8s.io kinds over HTTP in every served version: objects written in one version read back in every
 * other as the golden objects of the conversion tests (src/test/resources/io/kdra/apiserver/resource/golden), lists,
 * watches and patches in versions other than the storage version, and validation errors with their field paths.
 */
class DraVersionsTest {

    private static final String GROUP = "/apis/resource.k8s.io/";

    private static ServerFixture fixture;

    @BeforeAll
    static void startServer() {
        fixture = new ServerFixture(ServerFixture.EVERY_DRA_FIELD);
    }

    @AfterAll
    static void stopServer() {
        fixture.close();
    }

    /** A golden object directory, its plural, whether it is namespaced, and its served versions. */
    private record Golden(String object, String plural, boolean namespaced, List<String> versions) {}

    private static final List<String> DEVICE_VERSIONS = List.of("v1", "v1beta2", "v1beta1");
    private static final List<Golden> GOLDEN = List.of(
            new Golden("deviceclass", "deviceclasses", false, DEVICE_VERSIONS),
            new Golden("resourceclaim", "resourceclaims", true, DEVICE_VERSIONS),
            new Golden("resourceclaimtemplate", "resourceclaimtemplates", true, DEVICE_VERSIONS),
            new Golden("resourceslice-node", "resourceslices", false, DEVICE_VERSIONS),
            new Golden("resourceslice-partitions", "resourceslices", false, DEVICE_VERSIONS),
            new Golden("resourceslice-counters", "resourceslices", false, DEVICE_VERSIONS),
            new Golden("devicetaintrule", "devicetaintrules", false, List.of("v1", "v1beta2", "v1alpha3")));

    static Stream<Arguments> writtenVersions() {
        List<Arguments> cases = new ArrayList<>();
        for (Golden golden : GOLDEN) {
            for (String version : golden.versions()) {
                cases.add(Arguments.argumentSet(golden.object() + " written in " + version, golden, version));
            }
        }
        return cases.stream();
    }

    @ParameterizedTest
    @MethodSource("writtenVersions")
    void anObjectWrittenInOneVersionReadsAsTheGoldenObjectOfEveryVersion(Golden golden, String written) {
        String name = golden.object() + "-" + written;
        String collection = collection(golden, written);
        ObjectNode sent = toCreate(GoldenObjects.load(golden.object(), written), name);

        HttpResponse<String> created = fixture.send("POST", collection, "application/json", Json.string(sent));

        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        assertThat(Json.text(parse(created.body()), "apiVersion")).isEqualTo("resource.k8s.io/" + written);
        for (String read : golden.versions()) {
            JsonNode object = get(collection(golden, read) + "/" + name);
            ObjectNode expected = GoldenObjects.load(golden.object(), read);
            assertThat(object.get("apiVersion")).isEqualTo(expected.get("apiVersion"));
            assertThat(object.get("kind")).isEqualTo(expected.get("kind"));
            assertThat(object.get("spec")).as("%s read in %s", name, read).isEqualTo(expected.get("spec"));
        }
    }

    @ParameterizedTest
    @MethodSource("statusVersions")
    void statusWrittenInOneVersionReadsAsTheGoldenStatusOfEveryVersion(Golden golden, String written) {
        String name = golden.object() + "-status-" + written;
        String storage = golden.versions().get(0);
        String collection = collection(golden, storage);
        assertThat(fixture.send("POST", collection, "application/json",
                Json.string(toCreate(GoldenObjects.load(golden.object(), storage), name))).statusCode()).isEqualTo(201);
        ObjectNode withStatus = toCreate(GoldenObjects.load(golden.object(), written), name);
        withStatus.set("status", GoldenObjects.load(golden.object(), written).get("status"));

        HttpResponse<String> updated = fixture.send("PUT", collection(golden, written) + "/" + name + "/status",
                "application/json", Json.string(withStatus));

        assertThat(updated.statusCode()).as(updated.body()).isEqualTo(200);
        for (String read : golden.versions()) {
            JsonNode object = get(collection(golden, read) + "/" + name);
            assertThat(object.get("status")).as("status read in %s", read)
                    .isEqualTo(GoldenObjects.load(golden.object(), read).get("status"));
        }
    }

    static Stream<Arguments> statusVersions() {
        return writtenVersions().filter(arguments -> {
            Golden golden = (Golden) arguments.get()[0];
            return golden.object().equals("resourceclaim") || golden.object().equals("devicetaintrule");
        });
    }

    @Test
    void aMinimalV1beta1ClaimIsDefaultedInTheVersionSent() {
        String ns = fixture.namespace();
        HttpResponse<String> created = fixture.send("POST", GROUP + "v1beta1/namespaces/" + ns + "/resourceclaims",
                "application/json", """
                {"apiVersion":"resource.k8s.io/v1beta1","kind":"ResourceClaim","metadata":{"name":"minimal"},
                 "spec":{"devices":{"requests":[{"name":"gpu","deviceClassName":"gpu.example.com",
                   "tolerations":[{"key":"k","effect":"NoSchedule"}]}]}}}""");
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);

        JsonNode v1 = get(GROUP + "v1/namespaces/" + ns + "/resourceclaims/minimal");
        assertThat(v1.at("/spec/devices/requests/0")).isEqualTo(parse("""
                {"name":"gpu","exactly":{"deviceClassName":"gpu.example.com","allocationMode":"ExactCount",
                 "count":1,"tolerations":[{"key":"k","operator":"Equal","effect":"NoSchedule"}]}}"""));
    }

    @Test
    void listsAndWatchesConvertToTheRequestedVersion() {
        String ns = fixture.namespace();
        var v1beta1Claims = fixture.client.genericKubernetesResources("resource.k8s.io/v1beta1", "ResourceClaim")
                .inNamespace(ns);
        List<GenericKubernetesResource> events = new CopyOnWriteArrayList<>();
        try (Watch watch = v1beta1Claims.watch(new Watcher<>() {
            @Override
            public void eventReceived(Action action, GenericKubernetesResource resource) {
                events.add(resource);
            }

            @Override
            public void onClose(WatcherException cause) {
            }
        })) {
            createV1Claim(ns, "watched");
            await().atMost(Duration.ofSeconds(30)).until(() -> !events.isEmpty());
        }
        GenericKubernetesResource event = events.get(0);
        assertThat(event.getApiVersion()).isEqualTo("resource.k8s.io/v1beta1");
        assertThat(firstRequest(event)).containsEntry("deviceClassName", "gpu.example.com")
                .containsEntry("allocationMode", "ExactCount").doesNotContainKey("exactly");

        var listed = v1beta1Claims.list();
        assertThat(listed.getApiVersion()).isEqualTo("resource.k8s.io/v1beta1");
        assertThat(listed.getItems()).singleElement().satisfies(item -> {
            assertThat(item.getApiVersion()).isEqualTo("resource.k8s.io/v1beta1");
            assertThat(firstRequest(item)).containsEntry("deviceClassName", "gpu.example.com");
        });
        JsonNode rawList = get(GROUP + "v1beta2/namespaces/" + ns + "/resourceclaims");
        assertThat(Json.text(rawList, "kind")).isEqualTo("ResourceClaimList");
        assertThat(Json.text(rawList, "apiVersion")).isEqualTo("resource.k8s.io/v1beta2");
        assertThat(rawList.at("/items/0/apiVersion").stringValue()).isEqualTo("resource.k8s.io/v1beta2");
    }

    @Test
    void anHttpWatchStreamsDeviceTaintRulesInTheNonStorageVersion() throws Exception {
        assertThat(fixture.send("POST", GROUP + "v1beta2/devicetaintrules", "application/json", """
                {"metadata":{"name":"watched-rule"},"spec":{"taint":{"key":"k","effect":"NoSchedule"}}}""")
                .statusCode()).isEqualTo(201);
        HttpRequest request = HttpRequest.newBuilder(URI.create(fixture.server.url() + GROUP
                        + "v1alpha3/devicetaintrules?watch=true&resourceVersion=0&timeoutSeconds=30"
                        + "&fieldSelector=metadata.name%3Dwatched-rule"))
                .header("Authorization", "Bearer " + fixture.server.adminToken()).build();

        HttpResponse<Stream<String>> response = fixture.http.send(request, HttpResponse.BodyHandlers.ofLines());

        try (Stream<String> lines = response.body()) {
            JsonNode event = parse(lines.findFirst().orElseThrow());
            assertThat(Json.text(event, "type")).isEqualTo("ADDED");
            assertThat(Json.text(event, "object", "apiVersion")).isEqualTo("resource.k8s.io/v1alpha3");
            assertThat(Json.text(event, "object", "spec", "taint", "timeAdded")).isNotEmpty();
        }
    }

    @Test
    void patchesAndServerSideApplyInV1beta1() {
        String slice = GROUP + "v1beta1/resourceslices/patched-slice";
        ObjectNode created = toCreate(GoldenObjects.load("resourceslice-node", "v1beta1"), "patched-slice");
        assertThat(fixture.send("POST", GROUP + "v1beta1/resourceslices", "application/json", Json.string(created))
                .statusCode()).isEqualTo(201);

        HttpResponse<String> jsonPatched = fixture.send("PATCH", slice, "application/json-patch+json", """
                [{"op":"replace","path":"/spec/devices/0/basic/attributes/model/string","value":"h100"}]""");
        assertThat(jsonPatched.statusCode()).as(jsonPatched.body()).isEqualTo(200);
        assertThat(parse(jsonPatched.body()).at("/spec/devices/0/basic/attributes/model/string").stringValue())
                .isEqualTo("h100");
        assertThat(get(GROUP + "v1/resourceslices/patched-slice").at("/spec/devices/0/attributes/model/string")
                .stringValue()).isEqualTo("h100");

        HttpResponse<String> mergePatched = fixture.send("PATCH", slice, "application/merge-patch+json",
                "{\"metadata\":{\"labels\":{\"merge\":\"1\"}},\"spec\":{\"pool\":{\"generation\":4}}}");
        HttpResponse<String> strategicPatched = fixture.send("PATCH", slice,
                "application/strategic-merge-patch+json", "{\"metadata\":{\"labels\":{\"strategic\":\"2\"}}}");
        assertThat(List.of(mergePatched.statusCode(), strategicPatched.statusCode())).containsOnly(200);
        JsonNode v1beta2 = get(GROUP + "v1beta2/resourceslices/patched-slice");
        assertThat(Json.stringMap(v1beta2, "metadata", "labels")).containsEntry("merge", "1")
                .containsEntry("strategic", "2");
        assertThat(v1beta2.at("/spec/pool/generation").asLong()).isEqualTo(4);

        HttpResponse<String> applied = fixture.send("PATCH", GROUP + "v1beta1/deviceclasses/applied?fieldManager=ssa",
                "application/apply-patch+yaml", """
                {"apiVersion":"resource.k8s.io/v1beta1","kind":"DeviceClass","metadata":{"name":"applied"},
                 "spec":{"selectors":[{"cel":{"expression":"device.driver == 'gpu.example.com'"}}]}}""");
        assertThat(applied.statusCode()).as(applied.body()).isIn(200, 201);
        JsonNode v1 = get(GROUP + "v1/deviceclasses/applied");
        assertThat(v1.at("/spec/selectors/0/cel/expression").stringValue())
                .isEqualTo("device.driver == 'gpu.example.com'");
        assertThat(v1.at("/metadata/managedFields/0/manager").stringValue()).isEqualTo("ssa");
        assertThat(v1.at("/metadata/managedFields/0/operation").stringValue()).isEqualTo("Apply");
        assertThat(v1.at("/metadata/managedFields/0/apiVersion").stringValue()).isEqualTo("resource.k8s.io/v1beta1");
    }

    @Test
    void managedFieldsRecordTheVersionEachManagerWrote() {
        String slice = "/resourceslices/owned-slice";
        ObjectNode alice = toCreate(GoldenObjects.load("resourceslice-node", "v1beta1"), "owned-slice");
        assertThat(fixture.send("PATCH", GROUP + "v1beta1" + slice + "?fieldManager=alice",
                "application/apply-patch+yaml", Json.string(alice)).statusCode()).isEqualTo(201);
        assertThat(fixture.send("PATCH", GROUP + "v1beta2" + slice + "?fieldManager=bob",
                "application/merge-patch+json", "{\"metadata\":{\"labels\":{\"by\":\"bob\"}}}").statusCode())
                .isEqualTo(200);
        JsonNode managed = get(GROUP + "v1" + slice).at("/metadata/managedFields");
        assertThat(managed.findValuesAsString("manager")).containsExactly("alice", "bob");
        assertThat(managed.findValuesAsString("apiVersion"))
                .containsExactly("resource.k8s.io/v1beta1", "resource.k8s.io/v1beta2");
        assertThat(managed.at("/1/fieldsV1/f:metadata/f:labels/f:by").isObject()).isTrue();

        ObjectNode carol = toCreate(GoldenObjects.load("resourceslice-node", "v1"), "owned-slice");
        ((ObjectNode) carol.at("/spec/devices/0/attributes/model")).put("string", "h100");
        HttpResponse<String> conflict = fixture.send("PATCH", GROUP + "v1" + slice + "?fieldManager=carol",
                "application/apply-patch+yaml", Json.string(carol));
        assertThat(conflict.statusCode()).as(conflict.body()).isEqualTo(409);
        assertThat(Json.text(parse(conflict.body()), "message")).isEqualTo(
                "Apply failed with 1 conflict: conflict with \"alice\" using resource.k8s.io/v1beta1: .spec.devices");
    }

    @Test
    void invalidClaimsAre422WithTheStorageVersionsFieldPaths() {
        String ns = fixture.namespace();
        StringBuilder requests = new StringBuilder();
        for (int i = 0; i < 33; i++) {
            requests.append(i == 0 ? "" : ",").append("{\"name\":\"r").append(i)
                    .append("\",\"deviceClassName\":\"gpu.example.com\"}");
        }
        KubernetesClientException tooMany = createV1beta1Claim(ns, "Bad_Name",
                "{\"devices\":{\"requests\":[" + requests + "]}}");
        assertThat(tooMany.getCode()).isEqualTo(422);
        assertThat(tooMany.getStatus().getReason()).isEqualTo("Invalid");
        assertThat(tooMany.getStatus().getMessage()).startsWith("ResourceClaim.resource.k8s.io \"Bad_Name\" is invalid: [")
                .contains("spec.devices.requests: Too many: 33: must have at most 32 items");
        assertThat(causes(tooMany)).contains(
                "metadata.name FieldValueInvalid",
                "spec.devices.requests FieldValueTooMany");

        String longExpression = "device.driver == '" + "x".repeat(10 * 1024) + "'";
        KubernetesClientException tooLong = createV1beta1Claim(ns, "long-cel", """
                {"devices":{"requests":[{"name":"gpu","deviceClassName":"gpu.example.com",
                  "selectors":[{"cel":{"expression":"%s"}}]}]}}""".formatted(longExpression));
        assertThat(tooLong.getStatus().getMessage()).isEqualTo("ResourceClaim.resource.k8s.io \"long-cel\" is "
                + "invalid: spec.devices.requests[0].exactly.selectors[0].cel.expression: Too long: may not be more "
                + "than 10240 bytes");
        assertThat(causes(tooLong)).containsExactly(
                "spec.devices.requests[0].exactly.selectors[0].cel.expression FieldValueTooLong");

        // count 0 is Go's zero value, which defaulting turns into 1; a negative count is an error
        KubernetesClientException badCount = createV1beta1Claim(ns, "bad-count",
                "{\"devices\":{\"requests\":[{\"name\":\"gpu\",\"deviceClassName\":\"gpu.example.com\",\"count\":-1}]}}");
        assertThat(badCount.getStatus().getMessage()).endsWith(
                "spec.devices.requests[0].exactly.count: Invalid value: -1: must be greater than zero");
    }

    @Test
    void aClaimsSpecIsImmutable() {
        String ns = fixture.namespace();
        createV1Claim(ns, "fixed");
        String claim = GROUP + "v1beta1/namespaces/" + ns + "/resourceclaims/fixed";

        HttpResponse<String> changed = fixture.send("PATCH", claim, "application/merge-patch+json",
                "{\"spec\":{\"devices\":{\"requests\":[{\"name\":\"gpu\",\"deviceClassName\":\"other.example.com\"}]}}}");

        assertThat(changed.statusCode()).isEqualTo(422);
        JsonNode status = parse(changed.body());
        assertThat(Json.text(status, "message")).startsWith("ResourceClaim.resource.k8s.io \"fixed\" is invalid: "
                + "spec: Invalid value: ").endsWith(": field is immutable");
        assertThat(status.at("/details/causes/0/field").stringValue()).isEqualTo("spec");
        assertThat(fixture.send("PATCH", claim, "application/merge-patch+json",
                "{\"metadata\":{\"labels\":{\"still\":\"editable\"}}}").statusCode()).isEqualTo(200);
    }

    @Test
    void deviceTaintRulesAreServedInV1alpha3V1beta2AndV1() {
        HttpResponse<String> created = fixture.send("POST", GROUP + "v1alpha3/devicetaintrules", "application/json", """
                {"apiVersion":"resource.k8s.io/v1alpha3","kind":"DeviceTaintRule","metadata":{"name":"drain"},
                 "spec":{"deviceSelector":{"driver":"gpu.example.com"},"taint":{"key":"k","effect":"NoExecute"}}}""");
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        JsonNode v1beta2 = get(GROUP + "v1beta2/devicetaintrules/drain");
        assertThat(Json.text(v1beta2, "apiVersion")).isEqualTo("resource.k8s.io/v1beta2");
        assertThat(Json.text(v1beta2, "spec", "taint", "timeAdded")).isNotEmpty();
        JsonNode v1 = get(GROUP + "v1/devicetaintrules/drain");
        assertThat(Json.text(v1, "apiVersion")).isEqualTo("resource.k8s.io/v1");
        assertThat(v1.get("spec")).isEqualTo(v1beta2.get("spec"));
        assertThat(get(GROUP + "v1/devicetaintrules").at("/items").findValuesAsString("name")).contains("drain");

        HttpResponse<String> badEffect = fixture.send("POST", GROUP + "v1beta2/devicetaintrules", "application/json",
                "{\"metadata\":{\"name\":\"bad\"},\"spec\":{\"taint\":{\"key\":\"k\",\"effect\":\"Sometimes\"}}}");
        assertThat(badEffect.statusCode()).isEqualTo(422);
        assertThat(parse(badEffect.body()).at("/details/causes/0/field").stringValue()).isEqualTo("spec.taint.effect");

        JsonNode group = get("/apis/resource.k8s.io");
        assertThat(group.at("/versions").findValuesAsString("version"))
                .containsExactly("v1", "v1beta2", "v1beta1", "v1alpha3");
        assertThat(group.at("/preferredVersion/version").stringValue()).isEqualTo("v1");
        assertThat(get("/apis/resource.k8s.io/v1alpha3").at("/resources").findValuesAsString("name"))
                .containsExactly("devicetaintrules", "devicetaintrules/status", "resourcepoolstatusrequests",
                        "resourcepoolstatusrequests/status");
        assertThat(get("/apis/resource.k8s.io/v1").at("/resources").findValuesAsString("name"))
                .contains("devicetaintrules", "devicetaintrules/status");
    }

    @Test
    void fabric8WritesAndReadsDeviceTaintRulesInV1() {
        var rules = fixture.client.dynamicResourceAllocation().v1().deviceTaintRules();
        rules.resource(new io.fabric8.kubernetes.api.model.resource.v1.DeviceTaintRuleBuilder()
                .withNewMetadata().withName("fabric8").endMetadata()
                .withNewSpec().withNewDeviceSelector().withDriver("gpu.example.com").endDeviceSelector()
                .withNewTaint().withKey("k").withEffect("NoExecute").endTaint().endSpec().build()).create();

        assertThat(rules.withName("fabric8").get().getSpec().getTaint().getTimeAdded()).isNotEmpty();
        assertThat(rules.list().getItems()).extracting(rule -> rule.getMetadata().getName()).contains("fabric8");
        assertThat(Json.text(get(GROUP + "v1alpha3/devicetaintrules/fabric8"), "spec", "deviceSelector", "driver"))
                .isEqualTo("gpu.example.com");
        rules.withName("fabric8").delete();
    }

    @Test
    void thePluggedCelCheckerRejectsSelectorsThroughHttp() {
        try (ServerFixture strict = new ServerFixture(ApiServer.builder().config(ServerFixture.EVERY_DRA_FIELD).celChecker(
                expression -> expression.contains("==") ? Optional.empty() : Optional.of("compilation failed: no"))
                .build())) {
            HttpResponse<String> rejected = strict.send("POST", GROUP + "v1beta2/deviceclasses", "application/json",
                    "{\"metadata\":{\"name\":\"c\"},\"spec\":{\"selectors\":[{\"cel\":{\"expression\":\"nope\"}}]}}");
            assertThat(rejected.statusCode()).isEqualTo(422);
            assertThat(Json.text(parse(rejected.body()), "message")).isEqualTo("DeviceClass.resource.k8s.io \"c\" is "
                    + "invalid: spec.selectors[0].cel.expression: Invalid value: \"nope\": compilation failed: no");
            assertThat(strict.send("POST", GROUP + "v1beta2/deviceclasses", "application/json",
                    "{\"metadata\":{\"name\":\"c\"},\"spec\":{\"selectors\":[{\"cel\":{\"expression\":\"1 == 1\"}}]}}")
                    .statusCode()).isEqualTo(201);
        }
    }

    private static void createV1Claim(String ns, String name) {
        HttpResponse<String> created = fixture.send("POST", GROUP + "v1/namespaces/" + ns + "/resourceclaims",
                "application/json", """
                {"metadata":{"name":"%s"},"spec":{"devices":{"requests":[
                  {"name":"gpu","exactly":{"deviceClassName":"gpu.example.com"}}]}}}""".formatted(name));
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
    }

    private static KubernetesClientException createV1beta1Claim(String ns, String name, String spec) {
        GenericKubernetesResource claim = new GenericKubernetesResource();
        claim.setApiVersion("resource.k8s.io/v1beta1");
        claim.setKind("ResourceClaim");
        claim.setMetadata(new io.fabric8.kubernetes.api.model.ObjectMetaBuilder().withName(name).build());
        claim.setAdditionalProperty("spec", fixture.client.getKubernetesSerialization().unmarshal(spec, Map.class));
        var claims = fixture.client.genericKubernetesResources("resource.k8s.io/v1beta1", "ResourceClaim")
                .inNamespace(ns);
        Throwable thrown = catchThrowable(() -> claims.resource(claim).create());
        assertThat(thrown).isInstanceOf(KubernetesClientException.class);
        return (KubernetesClientException) thrown;
    }

    private static List<String> causes(KubernetesClientException e) {
        return e.getStatus().getDetails().getCauses().stream()
                .map((StatusCause cause) -> cause.getField() + " " + cause.getReason()).toList();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> firstRequest(GenericKubernetesResource claim) {
        Map<String, Object> spec = (Map<String, Object>) claim.getAdditionalProperties().get("spec");
        Map<String, Object> devices = (Map<String, Object>) spec.get("devices");
        return ((List<Map<String, Object>>) devices.get("requests")).get(0);
    }

    private static String collection(Golden golden, String version) {
        String namespace = golden.namespaced() ? "namespaces/default/" : "";
        return GROUP + version + "/" + namespace + golden.plural();
    }

    /** The golden object as a client would send it: its metadata reduced to the name, no status. */
    private static ObjectNode toCreate(ObjectNode golden, String name) {
        ObjectNode sent = golden.deepCopy();
        sent.putObject("metadata").put("name", name);
        sent.remove("status");
        return sent;
    }

    private static JsonNode get(String path) {
        HttpResponse<String> response = fixture.send("GET", path, null, null);
        assertThat(response.statusCode()).as("GET %s: %s", path, response.body()).isEqualTo(200);
        return parse(response.body());
    }

    private static JsonNode parse(String json) {
        return Json.parse(json.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }
}
