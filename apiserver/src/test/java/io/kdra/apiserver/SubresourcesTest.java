package io.kdra.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import io.kdra.apiserver.json.Json;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

class SubresourcesTest extends ServerTestBase {

    private static final String JSON = "application/json";

    @Test
    void bindingAssignsAnUnscheduledPodToANodeOnce() {
        String ns = fixture.namespace();
        Pod created = fixture.client.pods().inNamespace(ns).resource(WatchTest.pod("p", null)).create();

        HttpResponse<String> bound = fixture.send("POST", podPath(ns, "p") + "/binding", JSON, binding("p", "node-1"));
        assertThat(bound.statusCode()).isEqualTo(201);
        assertThat(parse(bound).path("status").asString()).isEqualTo("Success");

        Pod pod = fixture.client.pods().inNamespace(ns).withName("p").get();
        assertThat(pod.getSpec().getNodeName()).isEqualTo("node-1");
        assertThat(pod.getStatus().getConditions()).filteredOn(c -> c.getType().equals("PodScheduled"))
                .extracting(PodCondition::getStatus).containsExactly("True");
        assertThat(pod.getMetadata().getGeneration()).isEqualTo(created.getMetadata().getGeneration());
        HttpResponse<String> changes = fixture.send("GET", "/api/v1/namespaces/" + ns + "/pods?watch=1"
                + "&timeoutSeconds=1&resourceVersion=" + created.getMetadata().getResourceVersion(), null, null);
        assertThat(changes.body().lines().toList()).as("node and condition in one write").singleElement()
                .satisfies(event -> assertThat(event).startsWith("{\"type\":\"MODIFIED\"")
                        .contains("\"nodeName\":\"node-1\"", "\"type\":\"PodScheduled\""));

        HttpResponse<String> again = fixture.send("POST", podPath(ns, "p") + "/binding", JSON, binding("p", "node-2"));
        assertThat(again.statusCode()).isEqualTo(409);
        assertThat(message(again)).isEqualTo(
                "Operation cannot be fulfilled on pods/binding \"p\": pod p is already assigned to node \"node-1\"");
        assertThat(fixture.client.pods().inNamespace(ns).withName("p").get().getSpec().getNodeName())
                .isEqualTo("node-1");
    }

    @Test
    void bindingNeedsATargetNodeAndAPost() {
        String ns = fixture.namespace();
        fixture.client.pods().inNamespace(ns).resource(WatchTest.pod("p", null)).create();
        HttpResponse<String> noTarget = fixture.send("POST", podPath(ns, "p") + "/binding", JSON,
                "{\"apiVersion\":\"v1\",\"kind\":\"Binding\",\"metadata\":{\"name\":\"p\"},\"target\":{}}");
        assertThat(noTarget.statusCode()).isEqualTo(422);
        assertThat(message(noTarget)).isEqualTo("Binding \"p\" is invalid: target.name: Required value");
        HttpResponse<String> otherName = fixture.send("POST", podPath(ns, "p") + "/binding", JSON,
                binding("q", "node-1"));
        assertThat(otherName.statusCode()).isEqualTo(400);
        assertThat(message(otherName)).isEqualTo("name in URL does not match name in Binding object");
        assertThat(fixture.send("POST", podPath(ns, "p") + "/binding", JSON,
                "{\"apiVersion\":\"v1\",\"kind\":\"Binding\",\"target\":{\"name\":\"n\"}}").statusCode())
                .isEqualTo(400);
        assertThat(fixture.client.pods().inNamespace(ns).withName("p").get().getSpec().getNodeName()).isNull();
        assertThat(fixture.send("GET", podPath(ns, "p") + "/binding", null, null).statusCode()).isEqualTo(405);
        assertThat(fixture.send("POST", podPath(ns, "absent") + "/binding", JSON, binding("absent", "n"))
                .statusCode()).isEqualTo(404);
    }

    @Test
    void evictingAnUnscheduledPodRemovesItAtOnce() {
        String ns = fixture.namespace();
        fixture.client.pods().inNamespace(ns).resource(WatchTest.pod("p", null)).create();
        HttpResponse<String> evicted = fixture.send("POST", podPath(ns, "p") + "/eviction", JSON, eviction("p", ""));
        assertThat(evicted.statusCode()).isEqualTo(201);
        assertThat(parse(evicted).path("status").asString()).isEqualTo("Success");
        assertThat(fixture.client.pods().inNamespace(ns).withName("p").get()).isNull();

        fixture.client.pods().inNamespace(ns).resource(WatchTest.pod("kept", null)).create();
        HttpResponse<String> otherName = fixture.send("POST", podPath(ns, "kept") + "/eviction", JSON,
                eviction("p", ""));
        assertThat(otherName.statusCode()).isEqualTo(400);
        assertThat(message(otherName)).isEqualTo("name in URL does not match name in Eviction object");
        assertThat(fixture.client.pods().inNamespace(ns).withName("kept").get()).isNotNull();

        HttpResponse<String> missing = fixture.send("POST", podPath(ns, "p") + "/eviction", JSON, eviction("p", ""));
        assertThat(missing.statusCode()).isEqualTo(404);
        assertThat(message(missing)).isEqualTo("pods \"p\" not found");
    }

    @Test
    void unknownFieldsInASubresourcesBodyAreWarnedOf() {
        String ns = fixture.namespace();
        fixture.client.pods().inNamespace(ns).resource(WatchTest.pod("warned", null)).create();

        HttpResponse<String> evicted = fixture.send("POST", podPath(ns, "warned") + "/eviction", JSON,
                eviction("warned", ",\"deleteOptionz\":{}"));

        assertThat(evicted.statusCode()).isEqualTo(201);
        assertThat(evicted.headers().allValues("Warning")).containsExactly("299 - \"unknown field \\\"deleteOptionz\\\"\"");
    }

    @Test
    void anEvictionsDryRunLeavesThePod() {
        String ns = fixture.namespace();
        fixture.client.pods().inNamespace(ns).resource(WatchTest.pod("dry", null)).create();

        assertThat(fixture.send("POST", podPath(ns, "dry") + "/eviction", JSON,
                eviction("dry", ",\"deleteOptions\":{\"dryRun\":[\"All\"]}")).statusCode()).isEqualTo(201);
        assertThat(fixture.send("POST", podPath(ns, "dry") + "/eviction?dryRun=All", JSON, eviction("dry", ""))
                .statusCode()).isEqualTo(201);

        assertThat(fixture.client.pods().inNamespace(ns).withName("dry").get().getMetadata().getDeletionTimestamp())
                .isNull();
    }

    /** An eviction is a delete with the eviction's options, so a pod on a node terminates gracefully. */
    @Test
    void evictingAScheduledPodTerminatesItWithItsGracePeriod() {
        String ns = fixture.namespace();
        fixture.client.pods().inNamespace(ns).resource(WatchTest.pod("graceful", "node-1")).create();
        assertThat(fixture.send("POST", podPath(ns, "graceful") + "/eviction", JSON, eviction("graceful", ""))
                .statusCode()).isEqualTo(201);
        Pod terminating = fixture.client.pods().inNamespace(ns).withName("graceful").get();
        assertThat(terminating.getMetadata().getDeletionTimestamp()).isNotNull();
        assertThat(terminating.getMetadata().getDeletionGracePeriodSeconds()).isEqualTo(30L);

        fixture.client.pods().inNamespace(ns).resource(WatchTest.pod("unset", "node-1")).create();
        assertThat(fixture.send("POST", podPath(ns, "unset") + "/eviction", JSON,
                eviction("unset", ",\"deleteOptions\":{\"gracePeriodSeconds\":null}")).statusCode()).isEqualTo(201);
        assertThat(fixture.client.pods().inNamespace(ns).withName("unset").get().getMetadata()
                .getDeletionGracePeriodSeconds()).isEqualTo(30L);

        fixture.client.pods().inNamespace(ns).resource(WatchTest.pod("now", "node-1")).create();
        assertThat(fixture.send("POST", podPath(ns, "now") + "/eviction", JSON,
                eviction("now", ",\"deleteOptions\":{\"gracePeriodSeconds\":0}")).statusCode()).isEqualTo(201);
        assertThat(fixture.client.pods().inNamespace(ns).withName("now").get()).isNull();
    }

    @Test
    void scaleReadsAndWritesTheReplicaSetsReplicas() {
        String ns = fixture.namespace();
        ReplicaSet created = createReplicaSet(ns, "rs", 2);

        HttpResponse<String> read = fixture.send("GET", scalePath(ns, "rs"), null, null);
        assertThat(read.statusCode()).isEqualTo(200);
        JsonNode scale = parse(read);
        assertThat(Json.text(scale, "apiVersion")).isEqualTo("autoscaling/v1");
        assertThat(Json.text(scale, "kind")).isEqualTo("Scale");
        assertThat(Json.text(scale, "metadata", "resourceVersion"))
                .isEqualTo(created.getMetadata().getResourceVersion());
        assertThat(Json.text(scale, "metadata", "uid")).isEqualTo(created.getMetadata().getUid());
        assertThat(Json.at(scale, "spec", "replicas").asInt()).isEqualTo(2);
        assertThat(Json.at(scale, "status", "replicas").asInt()).isZero();
        assertThat(Json.text(scale, "status", "selector")).isEqualTo("app=web");

        HttpResponse<String> put = fixture.send("PUT", scalePath(ns, "rs"), JSON, scaleBody("rs",
                Json.text(scale, "metadata", "resourceVersion"), 3));
        assertThat(put.statusCode()).isEqualTo(200);
        assertThat(Json.at(parse(put), "spec", "replicas").asInt()).isEqualTo(3);
        ReplicaSet scaled = fixture.client.apps().replicaSets().inNamespace(ns).withName("rs").get();
        assertThat(scaled.getSpec().getReplicas()).isEqualTo(3);
        assertThat(scaled.getMetadata().getGeneration()).isEqualTo(2L);
        assertThat(scaled.getSpec().getTemplate().getMetadata().getLabels()).containsEntry("app", "web");

        assertThat(fixture.send("PUT", scalePath(ns, "rs"), JSON, scaleBody("rs", null, 1)).statusCode())
                .isEqualTo(200);
        assertThat(replicas(ns, "rs")).isEqualTo(1);
    }

    @Test
    void scaleWithAStaleResourceVersionIsAConflict() {
        String ns = fixture.namespace();
        ReplicaSet created = createReplicaSet(ns, "rs", 1);
        String stale = created.getMetadata().getResourceVersion();
        assertThat(fixture.send("PUT", scalePath(ns, "rs"), JSON, scaleBody("rs", stale, 2)).statusCode())
                .isEqualTo(200);

        String conflict = "Operation cannot be fulfilled on replicasets.apps \"rs\": the object has been modified; "
                + "please apply your changes to the latest version and try again";
        HttpResponse<String> put = fixture.send("PUT", scalePath(ns, "rs"), JSON, scaleBody("rs", stale, 5));
        assertThat(put.statusCode()).isEqualTo(409);
        assertThat(message(put)).isEqualTo(conflict);
        assertThat(parse(put).path("reason").asString()).isEqualTo("Conflict");

        HttpResponse<String> patch = fixture.send("PATCH", scalePath(ns, "rs"), "application/merge-patch+json",
                "{\"metadata\":{\"resourceVersion\":\"" + stale + "\"},\"spec\":{\"replicas\":5}}");
        assertThat(patch.statusCode()).isEqualTo(409);
        assertThat(message(patch)).isEqualTo(conflict);
        assertThat(replicas(ns, "rs")).isEqualTo(2);
    }

    @Test
    void scalePatchesHonourTheirContentType() {
        String ns = fixture.namespace();
        createReplicaSet(ns, "rs", 1);
        assertThat(fixture.send("PATCH", scalePath(ns, "rs"), "application/merge-patch+json",
                "{\"spec\":{\"replicas\":4}}").statusCode()).isEqualTo(200);
        assertThat(replicas(ns, "rs")).isEqualTo(4);

        assertThat(fixture.send("PATCH", scalePath(ns, "rs"), "application/json-patch+json",
                "[{\"op\":\"test\",\"path\":\"/spec/replicas\",\"value\":4},"
                        + "{\"op\":\"replace\",\"path\":\"/spec/replicas\",\"value\":5}]").statusCode())
                .isEqualTo(200);
        assertThat(replicas(ns, "rs")).isEqualTo(5);

        HttpResponse<String> failedTest = fixture.send("PATCH", scalePath(ns, "rs"), "application/json-patch+json",
                "[{\"op\":\"test\",\"path\":\"/spec/replicas\",\"value\":4},"
                        + "{\"op\":\"replace\",\"path\":\"/spec/replicas\",\"value\":9}]");
        assertThat(failedTest.statusCode()).isEqualTo(422);
        assertThat(replicas(ns, "rs")).isEqualTo(5);

        assertThat(fixture.send("PATCH", scalePath(ns, "rs"), "application/strategic-merge-patch+json",
                "{\"spec\":{\"replicas\":6}}").statusCode()).isEqualTo(200);
        assertThat(replicas(ns, "rs")).isEqualTo(6);

        HttpResponse<String> apply = fixture.send("PATCH", scalePath(ns, "rs") + "?fieldManager=me",
                "application/apply-patch+yaml", "{\"spec\":{\"replicas\":7}}");
        assertThat(apply.statusCode()).isEqualTo(415);
        assertThat(fixture.send("PATCH", scalePath(ns, "rs"), "text/plain", "{}").statusCode()).isEqualTo(415);
        assertThat(replicas(ns, "rs")).isEqualTo(6);
    }

    @Test
    void negativeReplicasAreInvalid() {
        String ns = fixture.namespace();
        createReplicaSet(ns, "rs", 1);
        HttpResponse<String> put = fixture.send("PUT", scalePath(ns, "rs"), JSON, scaleBody("rs", null, -1));
        assertThat(put.statusCode()).isEqualTo(422);
        assertThat(message(put)).isEqualTo(
                "Scale.autoscaling \"rs\" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0");
        HttpResponse<String> patch = fixture.send("PATCH", scalePath(ns, "rs"), "application/merge-patch+json",
                "{\"spec\":{\"replicas\":-2}}");
        assertThat(patch.statusCode()).isEqualTo(422);
        assertThat(replicas(ns, "rs")).isEqualTo(1);
    }

    @Test
    void scaleStatusCarriesTheSelectorAsText() {
        String ns = fixture.namespace();
        fixture.client.apps().replicaSets().inNamespace(ns).resource(new ReplicaSetBuilder().withNewMetadata()
                .withName("rs").endMetadata().withNewSpec().withReplicas(1).withNewSelector()
                .withMatchLabels(Map.of("tier", "web", "app", "web"))
                .addNewMatchExpression().withKey("env").withOperator("In").withValues("prod", "dev").endMatchExpression()
                .addNewMatchExpression().withKey("canary").withOperator("DoesNotExist").endMatchExpression()
                .endSelector().withNewTemplate().withNewMetadata()
                .withLabels(Map.of("app", "web", "tier", "web", "env", "prod")).endMetadata().withNewSpec()
                .addNewContainer().withName("c").withImage("busybox").endContainer().endSpec().endTemplate()
                .endSpec().build()).create();
        JsonNode scale = parse(fixture.send("GET", scalePath(ns, "rs"), null, null));
        assertThat(Json.text(scale, "status", "selector")).isEqualTo("app=web,!canary,env in (dev,prod),tier=web");
    }

    @Test
    void fabric8ScalesThroughTheSubresource() {
        String ns = fixture.namespace();
        createReplicaSet(ns, "rs", 1);
        fixture.client.apps().replicaSets().inNamespace(ns).withName("rs").scale(3);
        assertThat(replicas(ns, "rs")).isEqualTo(3);
    }

    @Test
    void aResourceClaimAlwaysShowsItsStatusSoAJsonPatchCanAddToIt() {
        String ns = fixture.namespace();
        String claims = "/apis/resource.k8s.io/v1/namespaces/" + ns + "/resourceclaims";
        HttpResponse<String> created = fixture.send("POST", claims, JSON, "{\"apiVersion\":\"resource.k8s.io/v1\","
                + "\"kind\":\"ResourceClaim\",\"metadata\":{\"name\":\"c\"},\"spec\":{\"devices\":{\"requests\":"
                + "[{\"name\":\"r\",\"exactly\":{\"deviceClassName\":\"dc\"}}]}}}");
        assertThat(created.statusCode()).isEqualTo(201);
        assertThat(parse(created).get("status")).hasToString("{}");

        HttpResponse<String> patched = fixture.send("PATCH", claims + "/c/status", "application/json-patch+json",
                "[{\"op\":\"add\",\"path\":\"/status/allocation\",\"value\":{}}]");
        assertThat(patched.statusCode()).as(patched.body()).isEqualTo(200);
        assertThat(parse(patched).at("/status/allocation").isObject()).isTrue();

        HttpResponse<String> cleared = fixture.send("PUT", claims + "/c/status", JSON,
                "{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceClaim\",\"metadata\":{\"name\":\"c\"}}");
        assertThat(cleared.statusCode()).as(cleared.body()).isEqualTo(200);
        assertThat(parse(cleared).get("status")).hasToString("{}");
    }

    private static ReplicaSet createReplicaSet(String ns, String name, int replicas) {
        return fixture.client.apps().replicaSets().inNamespace(ns).resource(new ReplicaSetBuilder().withNewMetadata()
                .withName(name).endMetadata().withNewSpec().withReplicas(replicas).withNewSelector()
                .withMatchLabels(Map.of("app", "web")).endSelector().withNewTemplate().withNewMetadata()
                .withLabels(Map.of("app", "web")).endMetadata().withNewSpec().addNewContainer().withName("c")
                .withImage("busybox").endContainer().endSpec().endTemplate().endSpec().build()).create();
    }

    private static int replicas(String ns, String name) {
        return fixture.client.apps().replicaSets().inNamespace(ns).withName(name).get().getSpec().getReplicas();
    }

    private static String binding(String pod, String node) {
        return "{\"apiVersion\":\"v1\",\"kind\":\"Binding\",\"metadata\":{\"name\":\"" + pod + "\"},"
                + "\"target\":{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"name\":\"" + node + "\"}}";
    }

    private static String eviction(String pod, String more) {
        return "{\"apiVersion\":\"policy/v1\",\"kind\":\"Eviction\",\"metadata\":{\"name\":\"" + pod + "\"}" + more
                + "}";
    }

    private static String scaleBody(String name, String resourceVersion, int replicas) {
        return "{\"apiVersion\":\"autoscaling/v1\",\"kind\":\"Scale\",\"metadata\":{\"name\":\"" + name + "\""
                + (resourceVersion == null ? "" : ",\"resourceVersion\":\"" + resourceVersion + "\"")
                + "},\"spec\":{\"replicas\":" + replicas + "}}";
    }

    private static String podPath(String ns, String name) {
        return "/api/v1/namespaces/" + ns + "/pods/" + name;
    }

    private static String scalePath(String ns, String name) {
        return "/apis/apps/v1/namespaces/" + ns + "/replicasets/" + name + "/scale";
    }

    private static JsonNode parse(HttpResponse<String> response) {
        return Json.parse(response.body().getBytes(StandardCharsets.UTF_8));
    }

    private static String message(HttpResponse<String> response) {
        return Json.text(parse(response), "message");
    }
}
