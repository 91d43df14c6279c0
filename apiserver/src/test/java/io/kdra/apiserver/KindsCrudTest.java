package io.kdra.apiserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kdra.apiserver.api.BuiltinResources;
import io.kdra.apiserver.api.ResourceType;
import io.kdra.apiserver.json.Json;
import io.kdra.kube.FeatureGates;
import io.kdra.kube.KubernetesVersion;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Every built-in kind, in its preferred version, through create, get, update, list and delete over HTTP, on a server
 * whose gates serve them all (the Workload API needs GenericWorkload).
 */
class KindsCrudTest {

    private static ServerFixture fixture;

    @BeforeAll
    static void startServer() {
        fixture = new ServerFixture(ApiServerConfig.defaults().withFeatureGates(FeatureGates.parse(
                new KubernetesVersion(1, 36), "GenericWorkload=true,DRAWorkloadResourceClaims=true")));
    }

    @AfterAll
    static void stopServer() {
        fixture.close();
    }

    private static final String POD_TEMPLATE = """
            {"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"busybox"}]}}""";
    private static final String DEVICE_REQUESTS = """
            {"devices":{"requests":[{"name":"req","exactly":{"deviceClassName":"gpu.example.com"}}]}}""";

    /** A minimal valid object per kind, without apiVersion, kind and metadata.name; NS stands for the namespace. */
    private static final Map<String, String> BODIES = Map.ofEntries(
            Map.entry("Namespace", "{}"),
            Map.entry("Node", "{\"spec\":{\"podCIDR\":\"10.0.0.0/24\"}}"),
            Map.entry("Pod", "{\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"busybox\"}]}}"),
            Map.entry("Event", """
                    {"involvedObject":{"kind":"Pod","namespace":"NS","name":"p"},"reason":"Started",
                     "message":"started","type":"Normal","source":{"component":"kubelet"}}"""),
            Map.entry("ServiceAccount", "{}"),
            Map.entry("Service", "{\"spec\":{\"selector\":{\"app\":\"web\"},\"ports\":[{\"port\":80}]}}"),
            Map.entry("ConfigMap", "{\"data\":{\"k\":\"v\"}}"),
            Map.entry("Secret", "{\"type\":\"Opaque\",\"data\":{\"k\":\"dg==\"}}"),
            Map.entry("ResourceQuota", "{\"spec\":{\"hard\":{\"pods\":\"10\"}}}"),
            Map.entry("DaemonSet.apps",
                    "{\"spec\":{\"selector\":{\"matchLabels\":{\"app\":\"web\"}},\"template\":" + POD_TEMPLATE + "}}"),
            Map.entry("ReplicaSet.apps", "{\"spec\":{\"replicas\":1,\"selector\":{\"matchLabels\":{\"app\":\"web\"}},"
                    + "\"template\":" + POD_TEMPLATE + "}}"),
            Map.entry("Deployment.apps", "{\"spec\":{\"replicas\":1,\"selector\":{\"matchLabels\":{\"app\":\"web\"}},"
                    + "\"template\":" + POD_TEMPLATE + "}}"),
            Map.entry("Job.batch", "{\"spec\":{\"template\":{\"spec\":{\"restartPolicy\":\"Never\",\"containers\":"
                    + "[{\"name\":\"c\",\"image\":\"busybox\"}]}}}}"),
            Map.entry("Lease.coordination.k8s.io", "{\"spec\":{\"holderIdentity\":\"me\",\"leaseDurationSeconds\":15,"
                    + "\"acquireTime\":\"2026-12-03T10:00:00.000000Z\",\"renewTime\":\"2026-12-03T10:00:10.000000Z\"}}"),
            Map.entry("Event.events.k8s.io", """
                    {"eventTime":"2026-12-03T10:00:00.000000Z","reportingController":"kdra.io/test",
                     "reportingInstance":"test-1","action":"Start","reason":"Started","type":"Normal",
                     "regarding":{"kind":"Pod","namespace":"NS","name":"p"},"note":"started"}"""),
            Map.entry("Role.rbac.authorization.k8s.io",
                    "{\"rules\":[{\"apiGroups\":[\"\"],\"resources\":[\"pods\"],\"verbs\":[\"get\"]}]}"),
            Map.entry("RoleBinding.rbac.authorization.k8s.io", """
                    {"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"r"},
                     "subjects":[{"kind":"ServiceAccount","name":"default","namespace":"NS"}]}"""),
            Map.entry("ClusterRole.rbac.authorization.k8s.io",
                    "{\"rules\":[{\"apiGroups\":[\"resource.k8s.io\"],\"resources\":[\"*\"],\"verbs\":[\"*\"]}]}"),
            Map.entry("ClusterRoleBinding.rbac.authorization.k8s.io", """
                    {"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"r"},
                     "subjects":[{"kind":"Group","apiGroup":"rbac.authorization.k8s.io","name":"system:nodes"}]}"""),
            Map.entry("ValidatingAdmissionPolicy.admissionregistration.k8s.io", """
                    {"spec":{"failurePolicy":"Fail","matchConstraints":{"resourceRules":[{"apiGroups":["resource.k8s.io"],
                     "apiVersions":["*"],"operations":["CREATE","UPDATE"],"resources":["resourceslices"]}]},
                     "validations":[{"expression":"true"}]}}"""),
            Map.entry("ValidatingAdmissionPolicyBinding.admissionregistration.k8s.io",
                    "{\"spec\":{\"policyName\":\"p\",\"validationActions\":[\"Deny\"]}}"),
            Map.entry("DeviceClass.resource.k8s.io", "{\"spec\":{}}"),
            Map.entry("ResourceClaim.resource.k8s.io", "{\"spec\":" + DEVICE_REQUESTS + "}"),
            Map.entry("ResourceClaimTemplate.resource.k8s.io", "{\"spec\":{\"spec\":" + DEVICE_REQUESTS + "}}"),
            Map.entry("ResourceSlice.resource.k8s.io", """
                    {"spec":{"driver":"gpu.example.com","nodeName":"node-1",
                     "pool":{"name":"node-1","generation":1,"resourceSliceCount":1},"devices":[{"name":"gpu-0"}]}}"""),
            Map.entry("DeviceTaintRule.resource.k8s.io", """
                    {"spec":{"deviceSelector":{"driver":"gpu.example.com"},
                     "taint":{"key":"example.com/broken","effect":"NoSchedule"}}}"""),
            Map.entry("ResourcePoolStatusRequest.resource.k8s.io", "{\"spec\":{\"driver\":\"gpu.example.com\"}}"),
            Map.entry("Workload.scheduling.k8s.io", """
                    {"spec":{"podGroupTemplates":[{"name":"group","schedulingPolicy":{"gang":{"minCount":2}},
                     "resourceClaims":[{"name":"gpu","resourceClaimTemplateName":"t"}]}]}}"""),
            Map.entry("PodGroup.scheduling.k8s.io", """
                    {"spec":{"workloadRef":{"workloadName":"w","templateName":"group"},
                     "schedulingPolicy":{"basic":{}},"resourceClaims":[{"name":"gpu","resourceClaimName":"c"}]}}"""));

    static Stream<Named<ResourceType>> kinds() {
        return BuiltinResources.all().stream().map(type -> Named.of(type.groupKind(), type));
    }

    @Test
    void everyKindHasABody() {
        List<String> kinds = new ArrayList<>();
        BuiltinResources.all().forEach(type -> kinds.add(type.groupKind()));
        assertThat(BODIES.keySet()).containsExactlyInAnyOrderElementsOf(kinds);
    }

    @ParameterizedTest
    @MethodSource("kinds")
    void createGetUpdateListDelete(ResourceType type) {
        String ns = fixture.namespace();
        String name = type.namespaced() ? "obj" : ns + "-obj";
        String version = type.versions().get(0);
        String collection = (type.group().isEmpty() ? "/api/" : "/apis/" + type.group() + "/") + version
                + (type.namespaced() ? "/namespaces/" + ns : "") + "/" + type.plural();
        ObjectNode object = (ObjectNode) parse(BODIES.get(type.groupKind()).replace("NS", ns));
        object.put("apiVersion", type.apiVersion(version));
        object.put("kind", type.kind());
        Json.metadata(object).put("name", name);

        HttpResponse<String> created = fixture.send("POST", collection + "?fieldValidation=Strict",
                "application/json", Json.string(object));
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        JsonNode createdObject = parse(created.body());
        String uid = Json.text(createdObject, "metadata", "uid");
        assertThat(uid).isNotEmpty();
        assertThat(Json.text(createdObject, "apiVersion")).isEqualTo(type.apiVersion(version));
        assertThat(Json.text(createdObject, "metadata", "namespace")).isEqualTo(type.namespaced() ? ns : null);

        HttpResponse<String> fetched = fixture.send("GET", collection + "/" + name, null, null);
        assertThat(fetched.statusCode()).isEqualTo(200);
        assertThat(Json.text(parse(fetched.body()), "metadata", "uid")).isEqualTo(uid);
        assertThat(Json.text(parse(fetched.body()), "kind")).isEqualTo(type.kind());

        // a controller may write between the read and the update (the quota controller fills in a ResourceQuota's
        // status): read again on a conflict, as client-go's RetryOnConflict does
        HttpResponse<String> updated = await().atMost(Duration.ofSeconds(30)).until(() -> {
            ObjectNode labelled = (ObjectNode) parse(fixture.send("GET", collection + "/" + name, null, null).body());
            Json.ensureObject(labelled, "metadata", "labels").put("touched", "yes");
            return fixture.send("PUT", collection + "/" + name + "?fieldValidation=Strict", "application/json",
                    Json.string(labelled));
        }, response -> response.statusCode() != 409);
        assertThat(updated.statusCode()).as(updated.body()).isEqualTo(200);
        assertThat(Json.text(parse(updated.body()), "metadata", "labels", "touched")).isEqualTo("yes");
        assertThat(Long.parseLong(Json.text(parse(updated.body()), "metadata", "resourceVersion")))
                .isGreaterThan(Long.parseLong(Json.text(createdObject, "metadata", "resourceVersion")));

        HttpResponse<String> listed = fixture.send("GET", collection, null, null);
        assertThat(listed.statusCode()).isEqualTo(200);
        JsonNode list = parse(listed.body());
        assertThat(Json.text(list, "kind")).isEqualTo(type.listKind());
        assertThat(Json.text(list, "apiVersion")).isEqualTo(type.apiVersion(version));
        assertThat(names(list)).contains(name);

        HttpResponse<String> deleted = fixture.send("DELETE", collection + "/" + name, null, null);
        assertThat(deleted.statusCode()).as(deleted.body()).isEqualTo(200);
        // a namespace is emptied and finalized by its controller after the delete
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                assertThat(fixture.send("GET", collection + "/" + name, null, null).statusCode()).isEqualTo(404));
        assertThat(names(parse(fixture.send("GET", collection, null, null).body()))).doesNotContain(name);
    }

    private static List<String> names(JsonNode list) {
        List<String> names = new ArrayList<>();
        list.get("items").forEach(item -> names.add(Json.text(item, "metadata", "name")));
        return names;
    }

    private static JsonNode parse(String json) {
        return Json.parse(json.getBytes(StandardCharsets.UTF_8));
    }
}
