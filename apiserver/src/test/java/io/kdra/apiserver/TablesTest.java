package io.kdra.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.kdra.apiserver.json.Json;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** Server-side tables, as kubectl get asks for them. */
class TablesTest extends ServerTestBase {

    private static final String KUBECTL_ACCEPT = "application/json;as=Table;v=v1;g=meta.k8s.io,"
            + "application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";

    @Test
    void podsListAsATableWithKubectlsColumns() {
        String ns = fixture.namespace();
        fixture.send("POST", "/api/v1/namespaces/" + ns + "/pods", "application/json", """
                {"metadata":{"name":"p"},"spec":{"containers":[{"name":"a","image":"i"},{"name":"b","image":"i"}]}}""");
        fixture.send("PUT", "/api/v1/namespaces/" + ns + "/pods/p/status", "application/json", """
                {"metadata":{"name":"p"},"status":{"phase":"Running","podIP":"10.0.0.7","containerStatuses":[
                  {"name":"a","ready":true,"restartCount":2,"state":{"running":{}}},
                  {"name":"b","ready":false,"restartCount":1,"state":{"waiting":{"reason":"CrashLoopBackOff"}}}]}}""");

        JsonNode table = get("/api/v1/namespaces/" + ns + "/pods", KUBECTL_ACCEPT);

        assertThat(Json.text(table, "kind")).isEqualTo("Table");
        assertThat(Json.text(table, "apiVersion")).isEqualTo("meta.k8s.io/v1");
        assertThat(table.at("/metadata/resourceVersion").isString()).isTrue();
        assertThat(table.get("columnDefinitions").findValuesAsString("name")).containsExactly("Name", "Ready",
                "Status", "Restarts", "Age", "IP", "Node", "Nominated Node", "Readiness Gates");
        assertThat(strings(table.at("/rows/0/cells"))).startsWith("p", "1/2", "CrashLoopBackOff", "3")
                .endsWith("10.0.0.7", "<none>", "<none>", "<none>");
        assertThat(table.at("/rows/0/object/kind").stringValue()).isEqualTo("PartialObjectMetadata");
        assertThat(table.at("/rows/0/object/metadata/namespace").stringValue()).isEqualTo(ns);
        assertThat(table.at("/rows/0/object/spec").isMissingNode()).isTrue();
    }

    @Test
    void draKindsHaveTheirColumnsInEveryVersion() {
        String ns = fixture.namespace();
        fixture.send("POST", "/apis/resource.k8s.io/v1/namespaces/" + ns + "/resourceclaims", "application/json", """
                {"metadata":{"name":"c"},"spec":{"devices":{"requests":[
                  {"name":"gpu","exactly":{"deviceClassName":"gpu.example.com"}}]}}}""");
        fixture.send("POST", "/apis/resource.k8s.io/v1/resourceslices", "application/json", """
                {"metadata":{"name":"table-slice"},"spec":{"driver":"gpu.example.com","nodeName":"node-1",
                 "pool":{"name":"pool-1","generation":1,"resourceSliceCount":1}}}""");

        JsonNode claims = get("/apis/resource.k8s.io/v1beta1/namespaces/" + ns + "/resourceclaims?includeObject=Object",
                KUBECTL_ACCEPT);
        assertThat(claims.get("columnDefinitions").findValuesAsString("name")).containsExactly("Name", "State", "Age");
        assertThat(strings(claims.at("/rows/0/cells"))).startsWith("c", "pending");
        assertThat(claims.at("/rows/0/object/apiVersion").stringValue()).isEqualTo("resource.k8s.io/v1beta1");
        assertThat(claims.at("/rows/0/object/spec/devices/requests/0/deviceClassName").stringValue())
                .isEqualTo("gpu.example.com");

        JsonNode slice = get("/apis/resource.k8s.io/v1beta2/resourceslices/table-slice?includeObject=None",
                "application/json;as=Table;v=v1beta1;g=meta.k8s.io");
        assertThat(Json.text(slice, "apiVersion")).isEqualTo("meta.k8s.io/v1beta1");
        assertThat(slice.get("columnDefinitions").findValuesAsString("name"))
                .containsExactly("Name", "Node", "Driver", "Pool", "Age");
        assertThat(strings(slice.at("/rows/0/cells"))).startsWith("table-slice", "node-1", "gpu.example.com", "pool-1");
        assertThat(slice.at("/rows/0/object").isMissingNode()).isTrue();
    }

    @Test
    void plainJsonFirstOrAnUnknownIncludeObject() {
        JsonNode list = get("/api/v1/namespaces", "application/json, " + KUBECTL_ACCEPT);
        assertThat(Json.text(list, "kind")).isEqualTo("NamespaceList");
        JsonNode protobufTableFirst = get("/api/v1/namespaces",
                "application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io,application/json");
        assertThat(Json.text(protobufTableFirst, "kind")).isEqualTo("NamespaceList");

        HttpResponse<String> bad = send("GET", "/api/v1/namespaces?includeObject=All", KUBECTL_ACCEPT);
        assertThat(bad.statusCode()).isEqualTo(400);
        assertThat(bad.body()).contains("includeObject: Unsupported value: \\\"All\\\"");
    }

    @Test
    void watchEventsCarryOneRowTables() throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(fixture.server.url()
                        + "/api/v1/namespaces?watch=true&resourceVersion=0&timeoutSeconds=30"
                        + "&fieldSelector=metadata.name%3Ddefault"))
                .header("Authorization", "Bearer " + fixture.server.adminToken()).header("Accept", KUBECTL_ACCEPT)
                .build();
        HttpResponse<Stream<String>> response = fixture.http.send(request, HttpResponse.BodyHandlers.ofLines());
        try (Stream<String> lines = response.body()) {
            JsonNode event = Json.parse(lines.findFirst().orElseThrow().getBytes(StandardCharsets.UTF_8));
            assertThat(Json.text(event, "type")).isEqualTo("ADDED");
            assertThat(Json.text(event, "object", "kind")).isEqualTo("Table");
            assertThat(strings(event.at("/object/rows/0/cells"))).startsWith("default", "Active");
        }
    }

    private static List<String> strings(JsonNode cells) {
        List<String> texts = new ArrayList<>();
        cells.forEach(cell -> texts.add(cell.isNumber() ? cell.asString() : cell.stringValue()));
        return texts;
    }

    private static JsonNode get(String path, String accept) {
        HttpResponse<String> response = send("GET", path, accept);
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return Json.parse(response.body().getBytes(StandardCharsets.UTF_8));
    }

    private static HttpResponse<String> send(String method, String path, String accept) {
        HttpRequest request = HttpRequest.newBuilder(URI.create(fixture.server.url() + path))
                .header("Authorization", "Bearer " + fixture.server.adminToken()).header("Accept", accept)
                .method(method, HttpRequest.BodyPublishers.noBody()).build();
        try {
            return fixture.http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
