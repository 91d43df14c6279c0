package io.kdra.apiserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kdra.apiserver.json.Json;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Watches the store offers only the changes of their indexed field value (a field selector's {@code =} value, else
 * their namespace) see exactly what a watch offered every change sees: objects entering a selector arrive as ADDED,
 * leaving as DELETED with their last matching state, nothing foreign, in resourceVersion order. Over HTTP, on a server
 * with several event loops.
 */
class WatchIndexTest {

    private static final String PATCH = "application/strategic-merge-patch+json";

    private static ServerFixture fixture;
    private final List<Watch> opened = new ArrayList<>();

    @BeforeAll
    static void start() {
        fixture = new ServerFixture(ApiServerConfig.defaults().withEventLoops(3));
    }

    @AfterAll
    static void stop() {
        fixture.close();
    }

    @AfterEach
    void closeWatches() {
        opened.forEach(Watch::close);
    }

    /** One event as a watcher read it. */
    record Seen(String type, String namespace, String name, String node, String phase, long resourceVersion) {
        @Override
        public String toString() {
            return type + " " + namespace + "/" + name;
        }
    }

    @Test
    void watchersOfManyNodesGetExactlyTheirPods() {
        String ns = fixture.namespace();
        String from = listVersion("/api/v1/namespaces/" + ns + "/pods");
        int nodes = 20;
        Map<String, Watch> byNode = new HashMap<>();
        for (int n = 0; n < nodes; n++) {
            byNode.put("node-" + n, watch("/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-" + n, from));
        }
        Watch unscheduled = watch("/api/v1/namespaces/" + ns + "/pods?fieldSelector=spec.nodeName%3D", from);
        Watch everything = watch("/api/v1/namespaces/" + ns + "/pods", from);
        for (int k = 0; k < 2 * nodes; k++) {
            create(ns, pod("p" + k, null));
            bind(ns, "p" + k, "node-" + k % nodes);
            patchStatus(ns, "p" + k, "Running");
            if (k % 2 == 0) {
                delete(ns, "p" + k);
            }
        }

        for (int n = 0; n < nodes; n++) {
            String node = "node-" + n;
            List<String> expected = new ArrayList<>();
            for (int k = n; k < 2 * nodes; k += nodes) {
                expected.add("ADDED " + ns + "/p" + k);
                expected.add("MODIFIED " + ns + "/p" + k);
                if (k % 2 == 0) {
                    expected.add("DELETED " + ns + "/p" + k);
                }
            }
            byNode.get(node).awaitExactly(expected);
            assertThat(byNode.get(node).seen()).allMatch(seen -> seen.node().equals(node));
        }
        List<String> created = new ArrayList<>();
        List<String> all = new ArrayList<>();
        for (int k = 0; k < 2 * nodes; k++) {
            created.add("ADDED " + ns + "/p" + k);
            created.add("DELETED " + ns + "/p" + k);
            all.addAll(List.of("ADDED " + ns + "/p" + k, "MODIFIED " + ns + "/p" + k, "MODIFIED " + ns + "/p" + k));
            if (k % 2 == 0) {
                all.add("DELETED " + ns + "/p" + k);
            }
        }
        unscheduled.awaitExactly(created);
        assertThat(unscheduled.seen()).filteredOn(seen -> seen.type().equals("DELETED"))
                .allMatch(seen -> seen.node().isEmpty());
        everything.awaitExactly(all);
    }

    @Test
    void objectsMovingBetweenIndexedValuesLeaveOneWatchAndEnterTheOther() {
        String ns = fixture.namespace();
        String from = listVersion("/api/v1/namespaces/" + ns + "/pods");
        Watch pending = watch("/api/v1/namespaces/" + ns + "/pods?fieldSelector=status.phase%3DPending", from);
        Watch running = watch("/api/v1/namespaces/" + ns + "/pods?fieldSelector=status.phase%3DRunning", from);
        Watch succeeded = watch("/api/v1/pods?fieldSelector=status.phase%3DSucceeded", from);
        create(ns, pod("mover", "node-1"));
        patchStatus(ns, "mover", "Running");
        patchStatus(ns, "mover", "Succeeded");

        pending.awaitExactly(List.of("ADDED " + ns + "/mover", "DELETED " + ns + "/mover"));
        running.awaitExactly(List.of("ADDED " + ns + "/mover", "DELETED " + ns + "/mover"));
        succeeded.awaitExactly(List.of("ADDED " + ns + "/mover"));
        // leaving carries the last state that matched, at the resourceVersion of the change that made it leave
        assertThat(pending.seen().get(1).phase()).isEqualTo("Pending");
        assertThat(pending.seen().get(1).resourceVersion()).isEqualTo(running.seen().get(0).resourceVersion());
        assertThat(running.seen().get(1).phase()).isEqualTo("Running");
        assertThat(running.seen().get(1).resourceVersion()).isEqualTo(succeeded.seen().get(0).resourceVersion());
    }

    @Test
    void namespaceAndFieldSelectorsCombine() {
        String a = fixture.namespace();
        String b = fixture.namespace();
        String from = listVersion("/api/v1/pods");
        Watch aOnNode1 = watch("/api/v1/namespaces/" + a + "/pods?fieldSelector=spec.nodeName%3Dnode-1", from);
        Watch bOnNode1 = watch("/api/v1/namespaces/" + b + "/pods?fieldSelector=spec.nodeName%3Dnode-1", from);
        Watch inA = watch("/api/v1/namespaces/" + a + "/pods", from);
        Watch aByFields = watch("/api/v1/pods?fieldSelector=metadata.namespace%3D" + a
                + ",spec.nodeName%3Dnode-2", from);
        Watch named = watch("/api/v1/pods?fieldSelector=metadata.name%3Dx,metadata.namespace%3D" + b, from);
        for (String ns : List.of(a, b)) {
            create(ns, pod("x", "node-1"));
            create(ns, pod("y", "node-2"));
        }

        aOnNode1.awaitExactly(List.of("ADDED " + a + "/x"));
        bOnNode1.awaitExactly(List.of("ADDED " + b + "/x"));
        inA.awaitExactly(List.of("ADDED " + a + "/x", "ADDED " + a + "/y"));
        aByFields.awaitExactly(List.of("ADDED " + a + "/y"));
        named.awaitExactly(List.of("ADDED " + b + "/x"));
    }

    @Test
    void selectorsThatCannotBeIndexedStillSelect() {
        String ns = fixture.namespace();
        String from = listVersion("/api/v1/namespaces/" + ns + "/pods");
        Watch notNode1 = watch("/api/v1/pods?fieldSelector=spec.nodeName!%3Dnode-1,metadata.namespace!%3Ddefault",
                from);
        Watch labelSet = watch("/api/v1/pods?labelSelector=app%20in%20(a,b),!tier", from);
        create(ns, pod("on-1", "node-1", Map.of("app", "a")));
        create(ns, pod("on-2", "node-2", Map.of("app", "b", "tier", "front")));
        create(ns, pod("on-3", "node-3", Map.of("app", "c")));
        patchLabels(ns, "on-2", "{\"tier\":null}");
        patchLabels(ns, "on-1", "{\"app\":\"c\"}");

        notNode1.awaitExactly(List.of("ADDED " + ns + "/on-2", "ADDED " + ns + "/on-3", "MODIFIED " + ns + "/on-2"));
        labelSet.awaitExactly(List.of("ADDED " + ns + "/on-1", "ADDED " + ns + "/on-2", "DELETED " + ns + "/on-1"));
    }

    @Test
    void concurrentWritersAndWatchersSeeEveryEventOnceInOrder() throws Exception {
        String ns = fixture.namespace();
        String from = listVersion("/api/v1/namespaces/" + ns + "/pods");
        int nodes = 8;
        int writers = 4;
        int podsPerWriter = 20;
        List<Watch> nodeWatches = new ArrayList<>();
        for (int n = 0; n < nodes; n++) {
            nodeWatches.add(watch("/api/v1/namespaces/" + ns + "/pods?fieldSelector=spec.nodeName%3Dnode-" + n,
                    from));
        }
        Watch all = watch("/api/v1/pods", from);
        Watch inNamespace = watch("/api/v1/namespaces/" + ns + "/pods", from);
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        try {
            List<Future<?>> running = new ArrayList<>();
            for (int w = 0; w < writers; w++) {
                int writer = w;
                running.add(pool.submit(() -> {
                    for (int i = 0; i < podsPerWriter; i++) {
                        String name = "w" + writer + "-" + i;
                        create(ns, pod(name, "node-" + (writer * podsPerWriter + i) % nodes));
                        patchStatus(ns, name, "Running");
                        patchStatus(ns, name, "Succeeded");
                    }
                }));
            }
            for (Future<?> writer : running) {
                writer.get();
            }
        } finally {
            pool.shutdown();
        }

        int pods = writers * podsPerWriter;
        for (int n = 0; n < nodes; n++) {
            String node = "node-" + n;
            Watch watch = nodeWatches.get(n);
            watch.awaitCount(3 * pods / nodes);
            assertThat(watch.seen()).allMatch(seen -> seen.node().equals(node));
            assertEveryPodInOrder(watch.seen(), pods / nodes);
        }
        inNamespace.awaitCount(3 * pods);
        assertEveryPodInOrder(inNamespace.seen(), pods);
        await().atMost(Duration.ofSeconds(30)).until(() -> all.seen().stream()
                .filter(seen -> seen.namespace().equals(ns)).count() == 3L * pods);
        assertThat(all.seen()).extracting(Seen::resourceVersion).isSorted().doesNotHaveDuplicates();
    }

    /** Each pod's create and 2 status writes, in order, each once; the resourceVersions strictly increase. */
    private static void assertEveryPodInOrder(List<Seen> seen, int pods) {
        assertThat(seen).extracting(Seen::resourceVersion).isSorted().doesNotHaveDuplicates();
        Map<String, List<String>> byPod = new HashMap<>();
        for (Seen event : seen) {
            byPod.computeIfAbsent(event.name(), name -> new ArrayList<>()).add(event.type() + " " + event.phase());
        }
        assertThat(byPod).hasSize(pods);
        assertThat(byPod.values()).allSatisfy(events -> assertThat(events)
                .containsExactly("ADDED Pending", "MODIFIED Running", "MODIFIED Succeeded"));
    }

    private Watch watch(String path, String fromResourceVersion) {
        String url = fixture.server.url() + path + (path.contains("?") ? "&" : "?") + "watch=1&resourceVersion="
                + fromResourceVersion;
        HttpRequest request = HttpRequest.newBuilder(URI.create(url))
                .header("Authorization", "Bearer " + fixture.server.adminToken()).build();
        try {
            HttpResponse<Stream<String>> response = fixture.http.send(request, HttpResponse.BodyHandlers.ofLines());
            assertThat(response.statusCode()).as(path).isEqualTo(200);
            Watch watch = new Watch(path, response.body());
            opened.add(watch);
            return watch;
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** A watch stream read to its end on its own thread. */
    private static final class Watch {
        private final String path;
        private final Stream<String> lines;
        private final List<Seen> seen = new CopyOnWriteArrayList<>();

        Watch(String path, Stream<String> lines) {
            this.path = path;
            this.lines = lines;
            Thread reader = new Thread(() -> {
                try {
                    lines.filter(line -> !line.isBlank()).forEach(line -> seen.add(parse(line)));
                } catch (RuntimeException e) {
                    // the stream was closed
                }
            }, "watch-reader");
            reader.setDaemon(true);
            reader.start();
        }

        List<Seen> seen() {
            return seen;
        }

        void awaitCount(int events) {
            await().atMost(Duration.ofSeconds(30)).until(() -> seen.size() >= events);
            assertThat(seen).as(path).hasSize(events);
        }

        /** Waits until the watch read as many events as expected, then checks they are these, in this order. */
        void awaitExactly(List<String> expected) {
            awaitCount(expected.size());
            assertThat(seen).as(path).extracting(Seen::toString).containsExactlyElementsOf(expected);
            assertThat(seen).as(path).extracting(Seen::resourceVersion).isSorted().doesNotHaveDuplicates();
        }

        void close() {
            lines.close();
        }

        private static Seen parse(String line) {
            JsonNode event = Json.parse(line.getBytes(StandardCharsets.UTF_8));
            JsonNode object = event.path("object");
            return new Seen(event.path("type").asString(), object.at("/metadata/namespace").asString(""),
                    object.at("/metadata/name").asString(""), object.at("/spec/nodeName").asString(""),
                    object.at("/status/phase").asString(""),
                    Long.parseLong(object.at("/metadata/resourceVersion").asString("0")));
        }
    }

    private static String listVersion(String path) {
        HttpResponse<String> list = fixture.send("GET", path, null, null);
        assertThat(list.statusCode()).isEqualTo(200);
        return Json.parse(list.body().getBytes(StandardCharsets.UTF_8)).at("/metadata/resourceVersion").asString();
    }

    private static void create(String ns, String pod) {
        expectSuccess(fixture.send("POST", "/api/v1/namespaces/" + ns + "/pods", "application/json", pod));
    }

    private static void bind(String ns, String name, String node) {
        expectSuccess(fixture.send("POST", "/api/v1/namespaces/" + ns + "/pods/" + name + "/binding",
                "application/json", "{\"apiVersion\":\"v1\",\"kind\":\"Binding\",\"metadata\":{\"name\":\"" + name
                        + "\"},\"target\":{\"kind\":\"Node\",\"name\":\"" + node + "\"}}"));
    }

    private static void patchStatus(String ns, String name, String phase) {
        expectSuccess(fixture.send("PATCH", "/api/v1/namespaces/" + ns + "/pods/" + name + "/status", PATCH,
                "{\"status\":{\"phase\":\"" + phase + "\"}}"));
    }

    private static void patchLabels(String ns, String name, String labels) {
        expectSuccess(fixture.send("PATCH", "/api/v1/namespaces/" + ns + "/pods/" + name, PATCH,
                "{\"metadata\":{\"labels\":" + labels + "}}"));
    }

    private static void delete(String ns, String name) {
        expectSuccess(fixture.send("DELETE", "/api/v1/namespaces/" + ns + "/pods/" + name + "?gracePeriodSeconds=0",
                null, null));
    }

    private static void expectSuccess(HttpResponse<String> response) {
        assertThat(response.statusCode()).as(response.body()).isBetween(200, 299);
    }

    private static String pod(String name, String node) {
        return pod(name, node, Map.of());
    }

    private static String pod(String name, String node, Map<String, String> labels) {
        StringBuilder labelJson = new StringBuilder();
        labels.forEach((key, value) -> labelJson.append(labelJson.length() == 0 ? "" : ",")
                .append('"').append(key).append("\":\"").append(value).append('"'));
        return "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"" + name + "\",\"labels\":{"
                + labelJson + "}},\"spec\":{" + (node == null ? "" : "\"nodeName\":\"" + node + "\",")
                + "\"containers\":[{\"name\":\"c\",\"image\":\"busybox\"}]}}";
    }
}
