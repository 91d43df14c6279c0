package io.kdra.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

class ContentNegotiationTest extends ServerTestBase {

    private static final String NOT_ACCEPTABLE =
            "only the following media types are accepted: application/json, application/yaml";

    @Test
    void yamlIsWrittenWhenAskedForAndReadWhenSent() {
        String configMaps = "/api/v1/namespaces/" + fixture.namespace() + "/configmaps";
        var created = request("POST", configMaps, "application/yaml", "application/yaml", """
                apiVersion: v1
                kind: ConfigMap
                metadata:
                  name: from-yaml
                data:
                  greeting: hello
                """);
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        assertThat(created.headers().firstValue("Content-Type")).hasValue("application/yaml");
        assertThat(created.body()).startsWith("apiVersion: \"v1\"\nkind: \"ConfigMap\"\n")
                .contains("  name: \"from-yaml\"", "  greeting: \"hello\"", "  resourceVersion: \"");

        var list = request("GET", configMaps, "application/yaml", null, null);
        assertThat(list.body()).startsWith("kind: \"ConfigMapList\"").contains("- apiVersion: \"v1\"");

        var missing = request("GET", configMaps + "/none", "application/yaml", null, null);
        assertThat(missing.statusCode()).isEqualTo(404);
        assertThat(missing.body()).contains("kind: \"Status\"", "reason: \"NotFound\"");

        var json = request("GET", configMaps + "/from-yaml", "text/plain, application/json", null, null);
        assertThat(json.headers().firstValue("Content-Type")).hasValue("application/json");
        assertThat(json.body()).startsWith("{");
    }

    @Test
    void anApplyPatchMayBeRealYaml() {
        String path = "/api/v1/namespaces/" + fixture.namespace() + "/configmaps/applied?fieldManager=yaml";

        var applied = request("PATCH", path, null, "application/apply-patch+yaml", """
                apiVersion: v1
                kind: ConfigMap
                metadata:
                  name: applied
                data:
                  k: v
                """);

        assertThat(applied.statusCode()).as(applied.body()).isEqualTo(201);
        assertThat(applied.body()).contains("\"k\":\"v\"");

        var broken = request("PATCH", path, null, "application/apply-patch+yaml", "data:\n  k: [unclosed\n");
        assertThat(broken.statusCode()).isEqualTo(400);
        assertThat(broken.body()).contains("error converting YAML to JSON");
        var repeated = request("PATCH", path, null, "application/apply-patch+yaml", "data:\n  k: a\n  k: b\n");
        assertThat(repeated.statusCode()).isEqualTo(400);
        assertThat(repeated.body()).contains("error converting YAML to JSON", "duplicate key k");
    }

    @Test
    void yamlIsReadAsKubeApiserverReadsIt() {
        String path = "/api/v1/namespaces/" + fixture.namespace() + "/configmaps?fieldManager=yaml";

        var created = request("POST", path, null, "application/yaml", """
                {apiVersion: v1, kind: ConfigMap, metadata: {name: flow, labels: &common {team: a}}}
                """);
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);

        var aliased = request("POST", path, null, "application/yaml", """
                apiVersion: v1
                kind: ConfigMap
                metadata:
                  name: aliased
                  labels: &labels
                    team: a
                  annotations: *labels
                immutable: ~
                data:
                  quoted: "true"
                """);
        assertThat(aliased.statusCode()).as(aliased.body()).isEqualTo(201);
        assertThat(aliased.body()).contains("\"annotations\":{\"team\":\"a\"}", "\"quoted\":\"true\"")
                .doesNotContain("immutable");

        var comments = request("POST", path, null, "application/yaml", "# nothing here\n");
        assertThat(comments.statusCode()).isEqualTo(400);
        assertThat(comments.body()).contains("the body of the request holds no YAML document");
    }

    @Test
    void anAcceptHeaderNamingNothingTheServerWritesIs406() {
        String pods = "/api/v1/namespaces/default/pods";
        // a table has no protobuf form, in kube-apiserver neither
        for (String accept : new String[] {"application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io", "text/plain",
                "application/json;as=Table;v=v9;g=meta.k8s.io"}) {
            var response = request("GET", pods, accept, null, null);
            assertThat(response.statusCode()).as(accept).isEqualTo(406);
            assertThat(response.body()).as(accept).contains("\"reason\":\"NotAcceptable\"", NOT_ACCEPTABLE);
        }
        assertThat(request("GET", pods + "?watch=true&timeoutSeconds=1", "application/yaml", null, null)
                .statusCode()).isEqualTo(406);
        assertThat(request("GET", pods, "application/json;as=Table;v=v1;g=meta.k8s.io", null, null).body())
                .contains("\"kind\":\"Table\"");
        assertThat(request("GET", pods, "application/yaml, application/json;as=Table;v=v1;g=meta.k8s.io", null, null)
                .body()).startsWith("kind: \"PodList\"");
        assertThat(request("GET", pods, "application/yaml;q=0.5, application/json", null, null).body())
                .startsWith("{\"kind\":\"PodList\"");
        assertThat(request("GET", pods, "application/json;q=0, application/yaml", null, null).body())
                .startsWith("kind: \"PodList\"");
    }

    @Test
    void aPatchOfAnUnknownTypeIs415WhateverItsBody() {
        var response = request("PATCH", "/api/v1/namespaces/default/configmaps/any", null, "text/plain", "not json");

        assertThat(response.statusCode()).isEqualTo(415);
        assertThat(response.body()).contains("\"reason\":\"UnsupportedMediaType\"");
    }

    private static HttpResponse<String> request(String method, String path, String accept, String contentType,
            String body) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(fixture.server.url() + path))
                .header("Authorization", "Bearer " + fixture.server.adminToken())
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body));
        if (accept != null) {
            request.header("Accept", accept);
        }
        if (contentType != null) {
            request.header("Content-Type", contentType);
        }
        try {
            return fixture.http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
