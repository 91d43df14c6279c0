package io.kdra.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMapList;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
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

    private static List<String> names(String ns, String selector) {
        return fixture.client.configMaps().inNamespace(ns)
                .list(new ListOptionsBuilder().withLabelSelector(selector).build()).getItems().stream()
                .map(c -> c.getMetadata().getName()).toList();
    }
}
