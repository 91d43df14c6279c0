package io.kdra.apiserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.MicroTime;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.kdra.apiserver.json.Json;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** core v1 and events.k8s.io/v1 Events are one resource in two shapes: what one group writes, the other serves. */
class EventGroupsTest extends ServerTestBase {

    private static final String TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io";

    @Test
    void anEventWrittenThroughEventsK8sIoIsACoreEvent() {
        String ns = fixture.namespace();
        fixture.client.events().v1().events().inNamespace(ns).resource(new io.fabric8.kubernetes.api.model.events.v1
                .EventBuilder().withNewMetadata().withName("pulled").endMetadata()
                .withEventTime(new MicroTime("2026-12-03T10:00:00.000000Z"))
                .withRegarding(new ObjectReferenceBuilder().withKind("Pod").withNamespace(ns).withName("p1")
                        .withUid("uid-1").build())
                .withRelated(new ObjectReferenceBuilder().withKind("Node").withName("node-1").build())
                .withNote("pulled image").withReason("Pulled").withAction("Pull").withType("Normal")
                .withReportingController("kdra.io/kubelet").withReportingInstance("node-1")
                .withNewSeries().withCount(3).withLastObservedTime(new MicroTime("2026-12-03T10:05:00.000000Z"))
                .endSeries().build()).create();

        io.fabric8.kubernetes.api.model.Event core = fixture.client.v1().events().inNamespace(ns).withName("pulled")
                .get();
        assertThat(core.getApiVersion()).isEqualTo("v1");
        assertThat(core.getInvolvedObject().getName()).isEqualTo("p1");
        assertThat(core.getInvolvedObject().getUid()).isEqualTo("uid-1");
        assertThat(core.getRelated().getName()).isEqualTo("node-1");
        assertThat(core.getMessage()).isEqualTo("pulled image");
        assertThat(core.getReportingComponent()).isEqualTo("kdra.io/kubelet");
        assertThat(core.getReportingInstance()).isEqualTo("node-1");
        assertThat(core.getAction()).isEqualTo("Pull");
        assertThat(core.getReason()).isEqualTo("Pulled");
        assertThat(core.getEventTime().getTime()).isEqualTo("2026-12-03T10:00:00.000000Z");
        assertThat(core.getSeries().getCount()).isEqualTo(3);
        assertThat(core.getSeries().getLastObservedTime().getTime()).isEqualTo("2026-12-03T10:05:00.000000Z");
        assertThat(fixture.client.v1().events().inNamespace(ns).list().getItems())
                .extracting(e -> e.getMetadata().getName()).containsExactly("pulled");

        // the same stored object, served in both shapes one after the other
        JsonNode eventsShape = getJson("/apis/events.k8s.io/v1/namespaces/" + ns + "/events/pulled");
        assertThat(Json.text(eventsShape, "apiVersion")).isEqualTo("events.k8s.io/v1");
        assertThat(Json.text(eventsShape, "regarding", "name")).isEqualTo("p1");
        assertThat(eventsShape.has("involvedObject")).isFalse();
        JsonNode coreShape = getJson("/api/v1/namespaces/" + ns + "/events/pulled");
        assertThat(Json.text(coreShape, "involvedObject", "name")).isEqualTo("p1");
        assertThat(coreShape.has("regarding")).isFalse();
        assertThat(Json.text(coreShape, "metadata", "resourceVersion"))
                .isEqualTo(Json.text(eventsShape, "metadata", "resourceVersion"));
    }

    @Test
    void aCoreEventIsServedAndUpdatedThroughEventsK8sIo() {
        String ns = fixture.namespace();
        fixture.client.v1().events().inNamespace(ns).resource(new EventBuilder().withNewMetadata()
                .withName("scheduled").endMetadata()
                .withInvolvedObject(new ObjectReferenceBuilder().withKind("Pod").withNamespace(ns).withName("p1")
                        .build())
                .withMessage("assigned").withReason("Scheduled").withType("Normal").withNewSource()
                .withComponent("default-scheduler").endSource().withFirstTimestamp("2026-12-03T10:00:00Z")
                .withLastTimestamp("2026-12-03T10:01:00Z").withCount(2).withReportingComponent("default-scheduler")
                .build()).create();

        var events = fixture.client.events().v1().events().inNamespace(ns);
        io.fabric8.kubernetes.api.model.events.v1.Event event = events.withName("scheduled").get();
        assertThat(event.getApiVersion()).isEqualTo("events.k8s.io/v1");
        assertThat(event.getRegarding().getName()).isEqualTo("p1");
        assertThat(event.getNote()).isEqualTo("assigned");
        assertThat(event.getDeprecatedSource().getComponent()).isEqualTo("default-scheduler");
        assertThat(event.getDeprecatedFirstTimestamp()).isEqualTo("2026-12-03T10:00:00Z");
        assertThat(event.getDeprecatedLastTimestamp()).isEqualTo("2026-12-03T10:01:00Z");
        assertThat(event.getDeprecatedCount()).isEqualTo(2);
        assertThat(event.getReportingController()).isEqualTo("default-scheduler");
        assertThat(events.list().getItems()).extracting(e -> e.getMetadata().getName()).containsExactly("scheduled");

        events.withName("scheduled").edit(e -> new io.fabric8.kubernetes.api.model.events.v1.EventBuilder(e)
                .withNote("assigned to node-1").build());
        assertThat(fixture.client.v1().events().inNamespace(ns).withName("scheduled").get().getMessage())
                .isEqualTo("assigned to node-1");
    }

    @Test
    void aWatchThroughEventsK8sIoSeesCoreWritesConverted() {
        String ns = fixture.namespace();
        List<String> seen = new CopyOnWriteArrayList<>();
        try (var watch = fixture.client.events().v1().events().inNamespace(ns).watch(new Watcher<>() {
            @Override
            public void eventReceived(Action action, io.fabric8.kubernetes.api.model.events.v1.Event event) {
                seen.add(action + " " + event.getMetadata().getName() + " " + event.getRegarding().getName() + " "
                        + event.getNote());
            }

            @Override
            public void onClose(WatcherException cause) {
            }
        })) {
            var core = fixture.client.v1().events().inNamespace(ns);
            core.resource(coreEvent("e1", "p1", "Started", "kubelet")).create();
            core.withName("e1").edit(e -> new EventBuilder(e).withMessage("started again").build());
            core.withName("e1").delete();
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(seen).containsExactly(
                    "ADDED e1 p1 Started", "MODIFIED e1 p1 started again", "DELETED e1 p1 started again"));
        }
    }

    @Test
    void eventsK8sIoSelectsByItsOwnFieldNames() {
        String ns = fixture.namespace();
        var core = fixture.client.v1().events().inNamespace(ns);
        core.resource(coreEvent("about-p1", "p1", "Started", "kubelet")).create();
        core.resource(coreEvent("about-p2", "p2", "Killing", "kdra.io/controller")).create();
        var events = fixture.client.events().v1().events().inNamespace(ns);

        assertThat(events.withField("regarding.name", "p1").list().getItems())
                .extracting(e -> e.getMetadata().getName()).containsExactly("about-p1");
        assertThat(events.withField("reportingController", "kdra.io/controller").list().getItems())
                .extracting(e -> e.getMetadata().getName()).containsExactly("about-p2");
        assertThat(events.withField("regarding.kind", "Pod").withField("reason", "Killing").list().getItems())
                .extracting(e -> e.getMetadata().getName()).containsExactly("about-p2");
        assertThat(events.withField("source", "kubelet").list().getItems())
                .extracting(e -> e.getMetadata().getName()).containsExactly("about-p1");

        HttpResponse<String> coreName = fixture.send("GET", "/apis/events.k8s.io/v1/namespaces/" + ns
                + "/events?fieldSelector=involvedObject.name%3Dp1", null, null);
        assertThat(coreName.statusCode()).isEqualTo(400);
        assertThat(coreName.body()).contains("\"message\":\"field label not supported: involvedObject.name\"");
        HttpResponse<String> eventsName = fixture.send("GET", "/api/v1/namespaces/" + ns
                + "/events?fieldSelector=regarding.name%3Dp1", null, null);
        assertThat(eventsName.statusCode()).isEqualTo(400);
        assertThat(eventsName.body()).contains("\"message\":\"field label not supported: regarding.name\"");
    }

    @Test
    void aWatchThroughEventsK8sIoSelectsByItsOwnFieldNames() {
        String ns = fixture.namespace();
        List<String> seen = new CopyOnWriteArrayList<>();
        try (var watch = fixture.client.events().v1().events().inNamespace(ns).withField("regarding.name", "p2")
                .watch(new Watcher<>() {
                    @Override
                    public void eventReceived(Action action, io.fabric8.kubernetes.api.model.events.v1.Event event) {
                        seen.add(action + " " + event.getMetadata().getName());
                    }

                    @Override
                    public void onClose(WatcherException cause) {
                    }
                })) {
            var core = fixture.client.v1().events().inNamespace(ns);
            core.resource(coreEvent("about-p1", "p1", "Started", "kubelet")).create();
            core.resource(coreEvent("about-p2", "p2", "Started", "kubelet")).create();
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(seen)
                    .containsExactly("ADDED about-p2"));
        }
    }

    @Test
    void eventsK8sIoBodiesDecodeAgainstTheirOwnSchema() {
        String ns = fixture.namespace();
        HttpResponse<String> coreFieldInEvents = fixture.send("POST", "/apis/events.k8s.io/v1/namespaces/" + ns
                + "/events?fieldValidation=Strict", "application/json", """
                {"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"name":"e"},
                 "eventTime":"2026-12-03T10:00:00.000000Z","involvedObject":{"name":"p1"}}""");
        assertThat(coreFieldInEvents.statusCode()).isEqualTo(400);
        assertThat(coreFieldInEvents.body()).contains("strict decoding error: unknown field \\\"involvedObject\\\"");
        HttpResponse<String> eventsFieldInCore = fixture.send("POST", "/api/v1/namespaces/" + ns
                + "/events?fieldValidation=Strict", "application/json", """
                {"apiVersion":"v1","kind":"Event","metadata":{"name":"e"},"note":"hello"}""");
        assertThat(eventsFieldInCore.statusCode()).isEqualTo(400);
        assertThat(eventsFieldInCore.body()).contains("strict decoding error: unknown field \\\"note\\\"");
    }

    @Test
    void kubectlGetEventsShowsEventsWrittenThroughEventsK8sIo() {
        String ns = fixture.namespace();
        HttpResponse<String> created = fixture.send("POST", "/apis/events.k8s.io/v1/namespaces/" + ns + "/events",
                "application/json", """
                {"metadata":{"name":"e"},"eventTime":"2026-12-03T10:00:00.000000Z","reason":"Allocated",
                 "type":"Normal","action":"Allocate","reportingController":"kdra.io/scheduler",
                 "reportingInstance":"s-1","regarding":{"kind":"ResourceClaim","name":"claim-1"},
                 "note":"allocated gpu-0"}""");
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);

        JsonNode core = getJson("/api/v1/namespaces/" + ns + "/events", TABLE);
        JsonNode events = getJson("/apis/events.k8s.io/v1/namespaces/" + ns + "/events", TABLE);
        List<String> columns = core.get("columnDefinitions").findValuesAsString("name");
        assertThat(columns).startsWith("Last Seen", "Type", "Reason", "Object");
        assertThat(events.get("columnDefinitions").findValuesAsString("name")).isEqualTo(columns);
        for (JsonNode table : List.of(core, events)) {
            assertThat(table.get("rows")).hasSize(1);
            assertThat(table.at("/rows/0/cells").toString()).contains("\"Allocated\"", "\"resourceclaim/claim-1\"",
                    "\"allocated gpu-0\"", "\"kdra.io/scheduler, s-1\"");
        }
    }

    @Test
    void anEventOwnedByADeletedObjectIsCollected() {
        String ns = fixture.namespace();
        ConfigMap owner = fixture.client.configMaps().inNamespace(ns).resource(WatchTest.cm("owner", Map.of()))
                .create();
        fixture.client.events().v1().events().inNamespace(ns).resource(new io.fabric8.kubernetes.api.model.events.v1
                .EventBuilder().withNewMetadata().withName("owned").withOwnerReferences(new OwnerReferenceBuilder()
                        .withApiVersion("v1").withKind("ConfigMap").withName("owner")
                        .withUid(owner.getMetadata().getUid()).build()).endMetadata()
                .withEventTime(new MicroTime("2026-12-03T10:00:00.000000Z")).withReason("Created")
                .withAction("Create").withReportingController("kdra.io/test").withReportingInstance("t-1")
                .withRegarding(new ObjectReferenceBuilder().withKind("ConfigMap").withName("owner").build())
                .build()).create();

        fixture.client.configMaps().inNamespace(ns).withName("owner").delete();

        await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                assertThat(fixture.client.v1().events().inNamespace(ns).withName("owned").get()).isNull());
    }

    @Test
    void deletingTheNamespaceDeletesItsEventsOnce() {
        String ns = fixture.namespace();
        List<String> deleted = new CopyOnWriteArrayList<>();
        try (var watch = fixture.client.v1().events().inNamespace(ns).watch(new Watcher<>() {
            @Override
            public void eventReceived(Action action, io.fabric8.kubernetes.api.model.Event event) {
                if (action == Action.DELETED) {
                    deleted.add(event.getMetadata().getName());
                }
            }

            @Override
            public void onClose(WatcherException cause) {
            }
        })) {
            fixture.client.v1().events().inNamespace(ns).resource(coreEvent("core", "p1", "Started", "kubelet"))
                    .create();
            HttpResponse<String> created = fixture.send("POST", "/apis/events.k8s.io/v1/namespaces/" + ns
                    + "/events", "application/json", """
                    {"metadata":{"name":"grouped"},"eventTime":"2026-12-03T10:00:00.000000Z","reason":"Started",
                     "action":"Start","reportingController":"kdra.io/test","reportingInstance":"t-1",
                     "regarding":{"kind":"Pod","name":"p1"}}""");
            assertThat(created.statusCode()).as(created.body()).isEqualTo(201);

            fixture.client.namespaces().withName(ns).delete();

            await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                    assertThat(fixture.client.namespaces().withName(ns).get()).isNull());
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                    assertThat(deleted).containsExactlyInAnyOrder("core", "grouped"));
            assertThat(fixture.client.events().v1().events().inNamespace(ns).list().getItems()).isEmpty();
        }
    }

    private static io.fabric8.kubernetes.api.model.Event coreEvent(String name, String pod, String reason,
            String component) {
        return new EventBuilder().withNewMetadata().withName(name).endMetadata()
                .withInvolvedObject(new ObjectReferenceBuilder().withKind("Pod").withName(pod).build())
                .withReason(reason).withMessage(reason).withType("Normal").withNewSource().withComponent(component)
                .endSource().withReportingComponent(component).build();
    }

    private static JsonNode getJson(String path) {
        return getJson(path, "application/json");
    }

    private static JsonNode getJson(String path, String accept) {
        HttpRequest request = HttpRequest.newBuilder(URI.create(fixture.server.url() + path))
                .header("Authorization", "Bearer " + fixture.server.adminToken()).header("Accept", accept).GET()
                .build();
        try {
            HttpResponse<String> response = fixture.http.send(request, HttpResponse.BodyHandlers.ofString());
            assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
            return Json.parse(response.body().getBytes(StandardCharsets.UTF_8));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
