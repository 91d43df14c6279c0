package io.kdra.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMapList;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceBuilder;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SelectionTest extends ServerTestBase {

    @Test
    void labelSelectorOperators() {
        String ns = fixture.namespace();
        var cms = fixture.client.configMaps().inNamespace(ns);
        cms.resource(WatchTest.cm("a", Map.of("tier", "front", "env", "prod"))).create();
        cms.resource(WatchTest.cm("b", Map.of("tier", "back"))).create();
        cms.resource(WatchTest.cm("c", Map.of())).create();
        assertThat(names(ns, "tier=front")).containsExactly("a");
        assertThat(names(ns, "tier==back")).containsExactly("b");
        assertThat(names(ns, "tier!=front")).containsExactly("b", "c");
        assertThat(names(ns, "tier in (front,back)")).containsExactly("a", "b");
        assertThat(names(ns, "tier notin (front)")).containsExactly("b", "c");
        assertThat(names(ns, "env")).containsExactly("a");
        assertThat(names(ns, "!env")).containsExactly("b", "c");
        assertThat(names(ns, "tier,!env")).containsExactly("b");
        assertThat(fixture.client.configMaps().inNamespace(ns).withLabelIn("tier", "back").list().getItems())
                .hasSize(1);
    }

    @Test
    void fieldSelectorsOnPodsAndSlices() {
        String ns = fixture.namespace();
        fixture.client.pods().inNamespace(ns).resource(WatchTest.pod("p1", "node-1")).create();
        fixture.client.pods().inNamespace(ns).resource(WatchTest.pod("p2", "node-2")).create();
        assertThat(fixture.client.pods().inNamespace(ns).withField("spec.nodeName", "node-1").list().getItems())
                .extracting(p -> p.getMetadata().getName()).containsExactly("p1");
        assertThat(fixture.client.pods().inNamespace(ns).withField("status.phase", "Pending").list().getItems())
                .hasSize(2);
        assertThat(fixture.client.pods().inNamespace(ns).withoutField("metadata.name", "p1").list().getItems())
                .extracting(p -> p.getMetadata().getName()).containsExactly("p2");

        var slices = fixture.client.dynamicResourceAllocation().v1().resourcesSlices();
        for (String node : List.of("n1", "n2")) {
            slices.resource(new ResourceSliceBuilder().withNewMetadata().withName(ns + "-" + node).endMetadata()
                    .withNewSpec().withDriver(ns + ".example.com").withNodeName(node).withNewPool().withName(node)
                    .withGeneration(1L).withResourceSliceCount(1L).endPool().endSpec().build()).create();
        }
        assertThat(slices.withField("spec.driver", ns + ".example.com").withField("spec.nodeName", "n2").list()
                .getItems()).extracting(s -> s.getMetadata().getName()).containsExactly(ns + "-n2");
        assertThat(slices.withField("spec.pool.name", "n1").list().getItems()).hasSize(1);
    }

    @Test
    void fieldSelectorsOnCoreEvents() {
        String ns = fixture.namespace();
        var events = fixture.client.v1().events().inNamespace(ns);
        events.resource(event("scheduled", new ObjectReferenceBuilder().withKind("Pod").withNamespace(ns)
                .withName("p1").withUid("uid-1").withApiVersion("v1").withResourceVersion("7")
                .withFieldPath("spec.containers{c}").build(), "Scheduled", "Normal", "default-scheduler")).create();
        events.resource(event("failed", new ObjectReferenceBuilder().withKind("Node").withName("node-1")
                .withUid("uid-2").build(), "NodeNotReady", "Warning", "kubelet")).create();

        assertThat(eventNames(ns, "involvedObject.name", "p1")).containsExactly("scheduled");
        assertThat(eventNames(ns, "involvedObject.kind", "Node")).containsExactly("failed");
        assertThat(eventNames(ns, "involvedObject.namespace", ns)).containsExactly("scheduled");
        assertThat(eventNames(ns, "involvedObject.namespace", "")).containsExactly("failed");
        assertThat(eventNames(ns, "involvedObject.uid", "uid-2")).containsExactly("failed");
        assertThat(eventNames(ns, "involvedObject.apiVersion", "v1")).containsExactly("scheduled");
        assertThat(eventNames(ns, "involvedObject.resourceVersion", "7")).containsExactly("scheduled");
        assertThat(eventNames(ns, "involvedObject.fieldPath", "spec.containers{c}")).containsExactly("scheduled");
        assertThat(eventNames(ns, "reason", "NodeNotReady")).containsExactly("failed");
        assertThat(eventNames(ns, "type", "Warning")).containsExactly("failed");
        assertThat(eventNames(ns, "source", "default-scheduler")).containsExactly("scheduled");
        assertThat(eventNames(ns, "reportingComponent", "kubelet")).containsExactly("failed");
        assertThat(events.withField("involvedObject.kind", "Pod").withField("reason", "NodeNotReady").list()
                .getItems()).isEmpty();

        // an event with no source component is selected by source through its reporting component
        events.resource(new EventBuilder().withNewMetadata().withName("reported").endMetadata()
                .withNewInvolvedObject().withKind("Pod").withName("p2").endInvolvedObject()
                .withReportingComponent("kdra.io/controller").withReportingInstance("i-1").build()).create();
        assertThat(eventNames(ns, "source", "kdra.io/controller")).containsExactly("reported");
        assertThat(eventNames(ns, "reportingComponent", "kdra.io/controller")).containsExactly("reported");
    }

    @Test
    void metadataNamespaceSelectsAcrossAllNamespaces() {
        String first = fixture.namespace();
        String second = fixture.namespace();
        fixture.client.configMaps().inNamespace(first).resource(WatchTest.cm("a", Map.of())).create();
        fixture.client.configMaps().inNamespace(second).resource(WatchTest.cm("b", Map.of())).create();
        assertThat(fixture.client.configMaps().inAnyNamespace().withField("metadata.namespace", second).list()
                .getItems()).extracting(c -> c.getMetadata().getNamespace() + "/" + c.getMetadata().getName())
                .containsExactly(second + "/b");
        assertThat(fixture.client.configMaps().inAnyNamespace().withoutField("metadata.namespace", second).list()
                .getItems()).extracting(c -> c.getMetadata().getNamespace())
                .contains(first).doesNotContain(second);
        var raw = fixture.send("GET", "/api/v1/configmaps?fieldSelector=metadata.namespace%3D" + first
                + "%2Cmetadata.name%3Da", null, null);
        assertThat(raw.statusCode()).isEqualTo(200);
        assertThat(raw.body()).contains("\"namespace\":\"" + first + "\"").doesNotContain(second);
    }

    @Test
    void unsupportedFieldSelectorIsABadRequest() {
        var response = fixture.send("GET", "/api/v1/pods?fieldSelector=spec.foo%3Dx", null, null);
        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(response.body()).contains("\"reason\":\"BadRequest\"")
                .contains("\"message\":\"field label not supported: spec.foo\"");
        var slices = fixture.send("GET", "/apis/resource.k8s.io/v1/resourceslices?fieldSelector=spec.bar%3Dx", null,
                null);
        assertThat(slices.statusCode()).isEqualTo(400);
        assertThat(slices.body()).contains(
                "field label not supported for resource.k8s.io/v1, Kind=ResourceSlice: spec.bar");
    }

    @Test
    void pagingWithLimitAndContinue() {
        String ns = fixture.namespace();
        for (int i = 0; i < 5; i++) {
            fixture.client.configMaps().inNamespace(ns).resource(WatchTest.cm("cm-" + i, Map.of())).create();
        }
        ConfigMapList first = fixture.client.configMaps().inNamespace(ns)
                .list(new ListOptionsBuilder().withLimit(2L).build());
        assertThat(first.getItems()).extracting(c -> c.getMetadata().getName()).containsExactly("cm-0", "cm-1");
        assertThat(first.getMetadata().getRemainingItemCount()).isEqualTo(3L);
        ConfigMapList second = fixture.client.configMaps().inNamespace(ns)
                .list(new ListOptionsBuilder().withLimit(2L).withContinue(first.getMetadata().getContinue()).build());
        assertThat(second.getItems()).extracting(c -> c.getMetadata().getName()).containsExactly("cm-2", "cm-3");
        ConfigMapList last = fixture.client.configMaps().inNamespace(ns)
                .list(new ListOptionsBuilder().withLimit(2L).withContinue(second.getMetadata().getContinue()).build());
        assertThat(last.getItems()).extracting(c -> c.getMetadata().getName()).containsExactly("cm-4");
        assertThat(last.getMetadata().getContinue()).isNull();
        assertThat(fixture.client.configMaps().inNamespace(ns).list().getItems()).hasSize(5);
    }

    private static Event event(String name, ObjectReference involved, String reason, String type,
            String component) {
        return new EventBuilder().withNewMetadata().withName(name).endMetadata().withInvolvedObject(involved)
                .withReason(reason).withType(type).withMessage(reason).withNewSource().withComponent(component)
                .endSource().withReportingComponent(component).build();
    }

    private static List<String> eventNames(String ns, String field, String value) {
        return fixture.client.v1().events().inNamespace(ns).withField(field, value).list().getItems().stream()
                .map(e -> e.getMetadata().getName()).toList();
    }

    private static List<String> names(String ns, String selector) {
        return fixture.client.configMaps().inNamespace(ns)
                .list(new ListOptionsBuilder().withLabelSelector(selector).build()).getItems().stream()
                .map(c -> c.getMetadata().getName()).toList();
    }
}
