package io.kdra.apiserver.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.kdra.apiserver.ApiServer;
import io.kdra.apiserver.json.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

class DiscoveryTest {

    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static ApiServer server;

    @BeforeAll
    static void start() {
        server = ApiServer.builder().build().start();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    /** The order of the Kubernetes API versioning documentation's example. */
    private static final List<String> KUBERNETES_ORDER = List.of("v10", "v2", "v1", "v11beta2", "v10beta3", "v3beta1",
            "v12alpha1", "v11alpha2", "foo1", "foo10");

    @Test
    void sortsVersionsByKubernetesPriorityWhateverTheirInputOrder() {
        Random random = new Random(20261203L);
        for (int round = 0; round < 50; round++) {
            List<String> versions = new ArrayList<>(KUBERNETES_ORDER);
            Collections.shuffle(versions, random);
            versions.sort(Discovery::byPriority);
            assertThat(versions).containsExactlyElementsOf(KUBERNETES_ORDER);
        }
    }

    @Test
    void podsHaveShortNamesCategoriesAndTheirSubresourceKinds() {
        JsonNode pods = resource("/api/v1", "pods");
        assertThat(strings(pods.get("shortNames"))).containsExactly("po");
        assertThat(strings(pods.get("categories"))).containsExactly("all");
        assertThat(pods.get("namespaced").asBoolean()).isTrue();
        assertThat(Json.text(pods, "kind")).isEqualTo("Pod");

        JsonNode eviction = resource("/api/v1", "pods/eviction");
        assertThat(Json.text(eviction, "group")).isEqualTo("policy");
        assertThat(Json.text(eviction, "version")).isEqualTo("v1");
        assertThat(Json.text(eviction, "kind")).isEqualTo("Eviction");
        assertThat(strings(eviction.get("verbs"))).containsExactly("create");

        JsonNode binding = resource("/api/v1", "pods/binding");
        assertThat(Json.text(binding, "kind")).isEqualTo("Binding");
        assertThat(binding.has("group")).isFalse();
        assertThat(strings(binding.get("verbs"))).containsExactly("create");

        assertThat(strings(resource("/api/v1", "pods/status").get("verbs"))).containsExactly("get", "patch", "update");
    }

    @Test
    void replicaSetScaleIsAnAutoscalingScale() {
        JsonNode scale = resource("/apis/apps/v1", "replicasets/scale");
        assertThat(Json.text(scale, "group")).isEqualTo("autoscaling");
        assertThat(Json.text(scale, "version")).isEqualTo("v1");
        assertThat(Json.text(scale, "kind")).isEqualTo("Scale");
        assertThat(strings(scale.get("verbs"))).containsExactly("get", "patch", "update");
        assertThat(strings(resource("/apis/apps/v1", "replicasets").get("shortNames"))).containsExactly("rs");
    }

    @Test
    void resourceClaimsHaveAStatusSubresource() {
        JsonNode status = resource("/apis/resource.k8s.io/v1", "resourceclaims/status");
        assertThat(Json.text(status, "kind")).isEqualTo("ResourceClaim");
        assertThat(status.get("namespaced").asBoolean()).isTrue();
        assertThat(strings(status.get("verbs"))).containsExactly("get", "patch", "update");
    }

    @Test
    void namespacesCannotBeDeletedAsACollection() {
        assertThat(strings(resource("/api/v1", "namespaces").get("verbs")))
                .containsExactly("create", "delete", "get", "list", "patch", "update", "watch");
        assertThat(strings(resource("/api/v1", "configmaps").get("verbs")))
                .containsExactly("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch");

        HttpResponse<String> response = send("DELETE", "/api/v1/namespaces");
        assertThat(response.statusCode()).isEqualTo(405);
        assertThat(response.body()).contains("\"reason\":\"MethodNotAllowed\"");
        assertThat(send("GET", "/api/v1/namespaces/default").statusCode()).isEqualTo(200);
    }

    private static JsonNode resource(String groupVersion, String name) {
        HttpResponse<String> response = send("GET", groupVersion);
        assertThat(response.statusCode()).isEqualTo(200);
        for (JsonNode resource : Json.parse(response.body().getBytes(StandardCharsets.UTF_8))
                .get("resources")) {
            if (name.equals(Json.text(resource, "name"))) {
                return resource;
            }
        }
        throw new AssertionError(groupVersion + " does not list " + name + ": " + response.body());
    }

    private static List<String> strings(JsonNode array) {
        List<String> values = new ArrayList<>();
        array.forEach(value -> values.add(value.asString()));
        return values;
    }

    private static HttpResponse<String> send(String method, String path) {
        HttpRequest request = HttpRequest.newBuilder(URI.create(server.url() + path))
                .header("Authorization", "Bearer " + server.adminToken())
                .method(method, HttpRequest.BodyPublishers.noBody()).build();
        try {
            return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
