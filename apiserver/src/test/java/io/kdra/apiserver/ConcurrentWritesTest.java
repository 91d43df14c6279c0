package io.kdra.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.kdra.apiserver.json.Json;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Lost updates: writers increment one counter by read-modify-write with the resourceVersion they read, through each
 * write path. Every write either commits or gets 409 Conflict; the counter ends at exactly the number of commits, and
 * each commit advanced the object's resourceVersion once.
 */
class ConcurrentWritesTest extends ServerTestBase {

    private static final int WRITERS = 6;
    private static final int INCREMENTS = 30;
    private static final String CONFLICT = "the object has been modified; please apply your changes to the latest "
            + "version and try again";

    /** A write path and how it sets the counter to a value, given the object last read. */
    enum Path {
        UPDATE("/api/v1/namespaces/%s/configmaps") {
            @Override
            HttpResponse<String> write(String url, ObjectNode current, int value) {
                current.withObject("data").put("n", Integer.toString(value));
                return fixture.send("PUT", url, "application/json", Json.string(current));
            }
        },
        MERGE_PATCH("/api/v1/namespaces/%s/configmaps") {
            @Override
            HttpResponse<String> write(String url, ObjectNode current, int value) {
                return fixture.send("PATCH", url, "application/merge-patch+json", "{\"metadata\":{\"resourceVersion\":\""
                        + resourceVersion(current) + "\"},\"data\":{\"n\":\"" + value + "\"}}");
            }
        },
        JSON_PATCH("/api/v1/namespaces/%s/configmaps") {
            @Override
            HttpResponse<String> write(String url, ObjectNode current, int value) {
                return fixture.send("PATCH", url, "application/json-patch+json", "[{\"op\":\"replace\",\"path\":"
                        + "\"/metadata/resourceVersion\",\"value\":\"" + resourceVersion(current) + "\"},{\"op\":"
                        + "\"replace\",\"path\":\"/data/n\",\"value\":\"" + value + "\"}]");
            }
        },
        STRATEGIC_PATCH("/api/v1/namespaces/%s/configmaps") {
            @Override
            HttpResponse<String> write(String url, ObjectNode current, int value) {
                return fixture.send("PATCH", url, "application/strategic-merge-patch+json", "{\"metadata\":"
                        + "{\"resourceVersion\":\"" + resourceVersion(current) + "\"},\"data\":{\"n\":\"" + value
                        + "\"}}");
            }
        },
        APPLY("/api/v1/namespaces/%s/configmaps") {
            @Override
            HttpResponse<String> write(String url, ObjectNode current, int value) {
                return fixture.send("PATCH", url + "?fieldManager=counter&force=true", "application/apply-patch+yaml",
                        "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"counter\","
                                + "\"resourceVersion\":\"" + resourceVersion(current) + "\"},\"data\":{\"n\":\""
                                + value + "\"}}");
            }
        },
        STATUS("/apis/apps/v1/namespaces/%s/replicasets") {
            @Override
            HttpResponse<String> write(String url, ObjectNode current, int value) {
                current.withObject("status").put("observedGeneration", value);
                return fixture.send("PUT", url + "/status", "application/json", Json.string(current));
            }
        };

        final String collection;

        Path(String collection) {
            this.collection = collection;
        }

        abstract HttpResponse<String> write(String url, ObjectNode current, int value);

        int value(JsonNode object) {
            return this == STATUS ? object.at("/status/observedGeneration").asInt(0)
                    : Integer.parseInt(object.at("/data/n").asString());
        }

        String initial() {
            return this == STATUS ? """
                    {"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"counter"},
                     "spec":{"replicas":0,"selector":{"matchLabels":{"app":"c"}},
                      "template":{"metadata":{"labels":{"app":"c"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}}"""
                    : "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"counter\"},"
                            + "\"data\":{\"n\":\"0\"}}";
        }
    }

    @ParameterizedTest
    @EnumSource(Path.class)
    void concurrentIncrementsLoseNoUpdate(Path path) throws Exception {
        String collection = path.collection.formatted(fixture.namespace());
        HttpResponse<String> created = fixture.send("POST", collection, "application/json", path.initial());
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        String url = collection + "/counter";
        long firstVersion = Long.parseLong(resourceVersion(read(url)));
        AtomicInteger commits = new AtomicInteger();
        AtomicInteger conflicts = new AtomicInteger();
        List<Long> committedVersions = java.util.Collections.synchronizedList(new ArrayList<>());
        ExecutorService pool = Executors.newFixedThreadPool(WRITERS);
        try {
            List<Future<?>> writers = new ArrayList<>();
            for (int w = 0; w < WRITERS; w++) {
                writers.add(pool.submit(() -> {
                    for (int i = 0; i < INCREMENTS; i++) {
                        while (true) {
                            ObjectNode current = read(url);
                            HttpResponse<String> response = path.write(url, current, path.value(current) + 1);
                            if (response.statusCode() == 200) {
                                commits.incrementAndGet();
                                committedVersions.add(Long.parseLong(resourceVersion(
                                        (ObjectNode) Json.parse(response.body().getBytes()))));
                                break;
                            }
                            assertThat(response.statusCode()).as(response.body()).isEqualTo(409);
                            assertThat(response.body()).contains("\"reason\":\"Conflict\"", CONFLICT);
                            conflicts.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> writer : writers) {
                writer.get();
            }
        } finally {
            pool.shutdownNow();
        }

        ObjectNode last = read(url);
        assertThat(commits.get()).isEqualTo(WRITERS * INCREMENTS);
        assertThat(path.value(last)).isEqualTo(WRITERS * INCREMENTS);
        assertThat(committedVersions).doesNotHaveDuplicates().hasSize(WRITERS * INCREMENTS)
                .allSatisfy(version -> assertThat(version).isGreaterThan(firstVersion));
        assertThat(Long.parseLong(resourceVersion(last))).isEqualTo(committedVersions.stream()
                .mapToLong(Long::longValue).max().orElseThrow());
    }

    private static ObjectNode read(String url) {
        HttpResponse<String> response = fixture.send("GET", url, null, null);
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return (ObjectNode) Json.parse(response.body().getBytes());
    }

    private static String resourceVersion(ObjectNode object) {
        return object.at("/metadata/resourceVersion").asString();
    }
}
