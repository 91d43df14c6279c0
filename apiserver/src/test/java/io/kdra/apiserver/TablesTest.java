package io.kdra.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.kdra.apiserver.json.Json;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

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

    /** Core kinds keep what they are sent, so their printers meet values of any type; a table is always a 200. */
    @Test
    void objectsWithValuesOfAnyTypePrint() {
        String ns = fixture.namespace();
        List<String[]> objects = List.of(
                new String[] {"/api/v1/namespaces/" + ns + "/pods", """
                        {"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"i"}],
                         "initContainers":[{"name":"i","image":"i"}],"readinessGates":[{"conditionType":"G"}]},
                         "status":{"phase":"Running","reason":"R","podIP":"1.2.3.4","conditions":[{"type":"G","status":"True"}],
                          "initContainerStatuses":[{"state":{"terminated":{"exitCode":1,"signal":9}}}],
                          "containerStatuses":[{"ready":true,"restartCount":1,"state":{"waiting":{"reason":"W"}}}]}}"""},
                new String[] {"/api/v1/nodes", """
                        {"metadata":{"name":"n","labels":{"kubernetes.io/role":"r"}},"spec":{"unschedulable":true},
                         "status":{"conditions":[{"type":"Ready","status":"True"}],"addresses":[{"type":"InternalIP",
                          "address":"a"}],"nodeInfo":{"kubeletVersion":"v","osImage":"o"}}}"""},
                new String[] {"/api/v1/namespaces/" + ns + "/events", """
                        {"metadata":{"name":"e"},"involvedObject":{"kind":"Pod","name":"p"},"count":2,
                         "series":{"count":3,"lastObservedTime":"2026-01-01T00:00:00.000000Z"},
                         "firstTimestamp":"2026-01-01T00:00:00Z","source":{"component":"c","host":"h"}}"""},
                new String[] {"/apis/apps/v1/namespaces/" + ns + "/daemonsets", """
                        {"metadata":{"name":"d"},"spec":{"selector":{"matchLabels":{"a":"b"},"matchExpressions":[
                          {"key":"k","operator":"In","values":["v"]}]},"template":{"metadata":{"labels":{"a":"b"}},
                          "spec":{"nodeSelector":{"x":"y"},"containers":[{"name":"c","image":"i"}]}}},
                         "status":{"desiredNumberScheduled":1}}"""});
        Random random = new Random(20261203L);
        int created = 0;
        for (int round = 0; round < 40; round++) {
            for (String[] object : objects) {
                ObjectNode body = (ObjectNode) Json.parse(
                        object[1].getBytes(StandardCharsets.UTF_8));
                String name = Json.text(body, "metadata", "name") + "-" + round;
                body.withObject("metadata").put("name", name);
                String changed = replaceRandomValue(body, random);
                HttpResponse<String> response = fixture.send("POST", object[0], "application/json", Json.string(body));
                assertThat(response.statusCode()).as("%s: %s", changed, response.body()).isIn(201, 400, 422);
                if (response.statusCode() == 201) {
                    created++;
                    fixture.send("PUT", object[0] + "/" + name + "/status", "application/json", Json.string(body));
                    assertThat(send("GET", object[0] + "/" + name, KUBECTL_ACCEPT).statusCode()).as(changed)
                            .isEqualTo(200);
                }
            }
            for (String[] object : objects) {
                assertThat(send("GET", object[0], KUBECTL_ACCEPT).statusCode()).isEqualTo(200);
            }
        }
        assertThat(created).isPositive();
    }

    private static String replaceRandomValue(JsonNode root, Random random) {
        List<JsonNode> parents = new ArrayList<>();
        List<String> fields = new ArrayList<>();
        List<JsonNode> stack = new ArrayList<>(List.of(root));
        while (!stack.isEmpty()) {
            JsonNode node = stack.remove(stack.size() - 1);
            if (node.isObject()) {
                for (var entry : node.properties()) {
                    if (!entry.getKey().equals("metadata") && !entry.getKey().equals("name")) {
                        parents.add(node);
                        fields.add(entry.getKey());
                    }
                    stack.add(entry.getValue());
                }
            } else if (node.isArray()) {
                node.forEach(stack::add);
            }
        }
        int chosen = random.nextInt(fields.size());
        JsonNode replacement = switch (random.nextInt(4)) {
            case 0 -> JsonNodeFactory.instance.stringNode("x");
            case 1 -> JsonNodeFactory.instance.numberNode(-3);
            case 2 -> JsonNodeFactory.instance.arrayNode().add(1);
            default -> JsonNodeFactory.instance.objectNode().put("x", true);
        };
        ((ObjectNode) parents.get(chosen)).set(fields.get(chosen), replacement);
        return fields.get(chosen) + " = " + replacement;
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
