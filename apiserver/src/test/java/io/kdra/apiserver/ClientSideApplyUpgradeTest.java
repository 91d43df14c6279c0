package io.kdra.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.kdra.apiserver.json.Json;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Server-side apply by kubectl of an object kubectl applied client-side before, over plain HTTP: the fields the
 * last-applied annotation set, still at those values, are kubectl's without forcing, and the annotation follows what
 * kubectl applies (kube-apiserver's last-applied manager and updater).
 */
class ClientSideApplyUpgradeTest extends ServerTestBase {

    private static final String ANNOTATION = "kubectl.kubernetes.io/last-applied-configuration";

    @Test
    void kubectlTakesOverWhatItAppliedClientSide() {
        String path = clientSideApplied("taken", "v");

        HttpResponse<String> applied = apply(path, "kubectl", "v2");

        assertThat(applied.statusCode()).as(applied.body()).isEqualTo(200);
        JsonNode object = Json.parse(applied.body().getBytes(StandardCharsets.UTF_8));
        assertThat(object.at("/data/k").asString()).isEqualTo("v2");
        assertThat(object.at("/metadata/annotations").get(ANNOTATION).asString()).isEqualTo(
                "{\"apiVersion\":\"v1\",\"data\":{\"k\":\"v2\"},\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"taken\"}}");
        JsonNode managed = object.at("/metadata/managedFields");
        assertThat(managed).hasSize(2);
        assertThat(managed.get(0).get("manager").asString()).isEqualTo("kubectl-client-side-apply");
        assertThat(Json.string(managed.get(0).get("fieldsV1")))
                .isEqualTo("{\"f:metadata\":{\"f:annotations\":{\"f:" + ANNOTATION + "\":{}}}}");
        assertThat(managed.get(1).get("manager").asString()).isEqualTo("kubectl");
        assertThat(managed.get(1).get("operation").asString()).isEqualTo("Apply");
        assertThat(Json.string(managed.get(1).get("fieldsV1"))).isEqualTo("{\"f:data\":{\"f:k\":{}}}");
    }

    @Test
    void anotherManagerStillConflicts() {
        String path = clientSideApplied("other", "v");

        HttpResponse<String> applied = apply(path, "deployer", "v2");

        assertThat(applied.statusCode()).isEqualTo(409);
        assertThat(applied.body()).contains("conflict with \\\"kubectl-client-side-apply\\\" using v1: .data.k");
    }

    @Test
    void aFieldChangedSinceTheClientSideApplyStillConflicts() {
        String path = clientSideApplied("drifted", "v");
        assertThat(fixture.send("PATCH", path + "?fieldManager=kubectl-client-side-apply",
                "application/merge-patch+json", "{\"data\":{\"k\":\"drift\"}}").statusCode()).isEqualTo(200);

        HttpResponse<String> applied = apply(path, "kubectl", "v2");

        assertThat(applied.statusCode()).isEqualTo(409);
        assertThat(applied.body()).contains("Apply failed with 1 conflict");
    }

    @Test
    void managedFieldsWrittenByAClientAreKept() {
        String path = clientSideApplied("migrated", "v");
        String migrated = """
                [{"op":"replace","path":"/metadata/managedFields","value":[{"manager":"kubectl","operation":"Apply",
                  "apiVersion":"v1","time":"2026-12-03T10:00:00Z","fieldsType":"FieldsV1",
                  "fieldsV1":{"f:data":{"f:k":{}},"f:metadata":{"f:annotations":{".":{},"f:%s":{}}}}}]}]"""
                .formatted(ANNOTATION);

        HttpResponse<String> patched = fixture.send("PATCH", path + "?fieldManager=kubectl",
                "application/json-patch+json", migrated);

        assertThat(patched.statusCode()).as(patched.body()).isEqualTo(200);
        JsonNode managed = Json.parse(patched.body().getBytes(StandardCharsets.UTF_8)).at("/metadata/managedFields");
        assertThat(managed).hasSize(1);
        assertThat(managed.get(0).get("manager").asString()).isEqualTo("kubectl");
        assertThat(managed.get(0).get("operation").asString()).isEqualTo("Apply");
    }

    /** @return the object's path, after a create as {@code kubectl apply} (client-side) makes it */
    private static String clientSideApplied(String name, String value) {
        String collection = "/api/v1/namespaces/" + fixture.namespace() + "/configmaps";
        String lastApplied = "{\"apiVersion\":\"v1\",\"data\":{\"k\":\"" + value + "\"},\"kind\":\"ConfigMap\","
                + "\"metadata\":{\"annotations\":{},\"name\":\"" + name + "\"}}\n";
        String body = Json.string(Json.parse(("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\""
                + name + "\",\"annotations\":{\"" + ANNOTATION + "\":" + Json.string(
                        tools.jackson.databind.node.JsonNodeFactory.instance.stringNode(lastApplied))
                + "}},\"data\":{\"k\":\"" + value + "\"}}").getBytes(StandardCharsets.UTF_8)));
        HttpResponse<String> created = fixture.send("POST", collection + "?fieldManager=kubectl-client-side-apply",
                "application/json", body);
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        return collection + "/" + name;
    }

    private static HttpResponse<String> apply(String path, String manager, String value) {
        return fixture.send("PATCH", path + "?fieldManager=" + manager, "application/apply-patch+yaml", """
                apiVersion: v1
                kind: ConfigMap
                metadata:
                  name: %s
                data:
                  k: %s
                """.formatted(path.substring(path.lastIndexOf('/') + 1), value));
    }
}
