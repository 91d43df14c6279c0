package io.kdra.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.kdra.apiserver.json.Json;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** kube-apiserver's decoding of Secrets: stringData is merged into data and dropped; type defaults to Opaque. */
class SecretTest extends ServerTestBase {

    @Test
    void stringDataIsMergedIntoDataOnCreateAndWinsOnConflicts() {
        String ns = fixture.namespace();
        Secret created = fixture.client.secrets().inNamespace(ns).resource(new SecretBuilder().withNewMetadata()
                .withName("s").endMetadata().withData(Map.of("a", base64("1"), "b", base64("old")))
                .withStringData(Map.of("b", "två", "c", "3")).build()).create();
        assertThat(created.getStringData()).isNullOrEmpty();
        assertThat(created.getData()).containsOnly(Map.entry("a", base64("1")), Map.entry("b", base64("två")),
                Map.entry("c", base64("3")));
        assertThat(created.getType()).isEqualTo("Opaque");

        JsonNode stored = get(ns, "s");
        assertThat(stored.has("stringData")).isFalse();
        assertThat(Json.text(stored, "data", "b")).isEqualTo(base64("två"));
    }

    @Test
    void stringDataAloneBecomesData() {
        String ns = fixture.namespace();
        HttpResponse<String> created = fixture.send("POST", "/api/v1/namespaces/" + ns + "/secrets",
                "application/json", "{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":{\"name\":\"s\"},"
                        + "\"type\":\"example.com/custom\",\"stringData\":{\"token\":\"secret\"}}");
        assertThat(created.statusCode()).isEqualTo(201);
        JsonNode secret = parse(created.body());
        assertThat(secret.has("stringData")).isFalse();
        assertThat(Json.text(secret, "data", "token")).isEqualTo(base64("secret"));
        assertThat(Json.text(secret, "type")).isEqualTo("example.com/custom");
    }

    @Test
    void stringDataIsMergedOnUpdateAndPatch() {
        String ns = fixture.namespace();
        Secret created = fixture.client.secrets().inNamespace(ns).resource(new SecretBuilder().withNewMetadata()
                .withName("s").endMetadata().withData(Map.of("a", base64("1"))).build()).create();

        Secret updated = fixture.client.secrets().inNamespace(ns).resource(new SecretBuilder(created)
                .withStringData(Map.of("a", "2", "b", "x")).build()).update();
        assertThat(updated.getStringData()).isNullOrEmpty();
        assertThat(updated.getData()).containsOnly(Map.entry("a", base64("2")), Map.entry("b", base64("x")));

        HttpResponse<String> patched = fixture.send("PATCH", "/api/v1/namespaces/" + ns + "/secrets/s",
                "application/merge-patch+json", "{\"stringData\":{\"c\":\"y\"}}");
        assertThat(patched.statusCode()).isEqualTo(200);
        JsonNode secret = parse(patched.body());
        assertThat(secret.has("stringData")).isFalse();
        assertThat(Json.text(secret, "data", "a")).isEqualTo(base64("2"));
        assertThat(Json.text(secret, "data", "c")).isEqualTo(base64("y"));
        assertThat(get(ns, "s").has("stringData")).isFalse();
    }

    @Test
    void typeDefaultsToOpaqueAndCanBeSelected() {
        String ns = fixture.namespace();
        fixture.client.secrets().inNamespace(ns).resource(new SecretBuilder().withNewMetadata().withName("plain")
                .endMetadata().build()).create();
        fixture.client.secrets().inNamespace(ns).resource(new SecretBuilder().withNewMetadata().withName("tls")
                .endMetadata().withType("kubernetes.io/tls").withData(Map.of("tls.crt", "", "tls.key", "")).build())
                .create();
        assertThat(fixture.client.secrets().inNamespace(ns).withField("type", "Opaque").list().getItems())
                .extracting(s -> s.getMetadata().getName()).containsExactly("plain");
    }

    private static JsonNode get(String ns, String name) {
        return parse(fixture.send("GET", "/api/v1/namespaces/" + ns + "/secrets/" + name, null, null).body());
    }

    private static JsonNode parse(String json) {
        return Json.parse(json.getBytes(StandardCharsets.UTF_8));
    }

    private static String base64(String text) {
        return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8));
    }
}
