package io.kdra.apiserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirementBuilder;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.NodeSelectorTermBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.PodResource;
import io.kdra.apiserver.json.Json;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** Which spec changes an update of a pod may make, as kube-apiserver allows them, and the pod's QoS class. */
class PodUpdateTest extends ServerTestBase {

    private static final String JSON = "application/json";
    private static final String FORBIDDEN = "spec: Forbidden: pod updates may not change fields other than "
            + "`spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,"
            + "`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` "
            + "(allow it to be set to 1 if it was previously negative)";

    @Test
    void imagesAndLabelsMayChange() {
        PodResource pod = create(basicPod("p").editSpec().addNewInitContainer().withName("init").withImage("busybox")
                .endInitContainer().endSpec().build());

        Pod updated = pod.edit(p -> new PodBuilder(p).editMetadata().addToLabels("tier", "web")
                .addToAnnotations("note", "x").endMetadata().editSpec().editFirstContainer().withImage("nginx:2")
                .endContainer().editFirstInitContainer().withImage("busybox:2").endInitContainer().endSpec().build());

        assertThat(updated.getSpec().getContainers().get(0).getImage()).isEqualTo("nginx:2");
        assertThat(updated.getSpec().getInitContainers().get(0).getImage()).isEqualTo("busybox:2");
        assertThat(updated.getMetadata().getLabels()).containsEntry("tier", "web");
        assertThat(updated.getMetadata().getGeneration()).isEqualTo(2L);
    }

    @Test
    void otherContainerFieldsMayNotChange() {
        PodResource pod = create(basicPod("p").build());

        assertForbidden(pod, p -> new PodBuilder(p).editSpec().editFirstContainer().addNewEnv().withName("A")
                .withValue("1").endEnv().endContainer().endSpec().build(), FORBIDDEN);
        assertForbidden(pod, p -> new PodBuilder(p).editSpec().editFirstContainer().withCommand("sleep", "1")
                .endContainer().endSpec().build(), FORBIDDEN);
        assertForbidden(pod, p -> new PodBuilder(p).editSpec().withRestartPolicy("Never").endSpec().build(),
                FORBIDDEN);
        assertForbidden(pod, p -> new PodBuilder(p).editSpec().addNewContainer().withName("two").withImage("i")
                .endContainer().endSpec().build(),
                "spec.containers: Forbidden: pod updates may not add or remove containers");
        assertForbidden(pod, p -> new PodBuilder(p).editSpec().editFirstContainer().withImage("")
                .endContainer().endSpec().build(), "spec.containers[0].image: Required value");
        assertThat(pod.get().getSpec().getContainers()).singleElement().satisfies(c -> {
            assertThat(c.getImage()).isEqualTo("busybox");
            assertThat(c.getEnv()).isEmpty();
            assertThat(c.getCommand()).isEmpty();
        });
    }

    @Test
    void aRawPutIsAnsweredWithTheForbiddenStatus() {
        String ns = fixture.namespace();
        create(ns, basicPod("p").build());
        String resourceVersion = fixture.client.pods().inNamespace(ns).withName("p").get().getMetadata()
                .getResourceVersion();

        HttpResponse<String> changed = fixture.send("PUT", podPath(ns, "p"), JSON, """
                {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","resourceVersion":"%s"},
                 "spec":{"containers":[{"name":"c","image":"busybox","args":["-v"]}]}}""".formatted(resourceVersion));

        assertThat(changed.statusCode()).isEqualTo(422);
        JsonNode status = parse(changed);
        assertThat(status.path("reason").asString()).isEqualTo("Invalid");
        assertThat(status.path("message").asString()).isEqualTo("Pod \"p\" is invalid: " + FORBIDDEN);
        JsonNode cause = status.path("details").path("causes").get(0);
        assertThat(cause.path("reason").asString()).isEqualTo("FieldValueForbidden");
        assertThat(cause.path("field").asString()).isEqualTo("spec");
    }

    @Test
    void aPutWithoutTheDefaultsIsComparedAfterDefaulting() {
        String ns = fixture.namespace();
        create(ns, basicPod("p").build());

        HttpResponse<String> imageOnly = fixture.send("PUT", podPath(ns, "p"), JSON, """
                {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},
                 "spec":{"containers":[{"name":"c","image":"busybox:2"}]}}""");

        assertThat(imageOnly.statusCode()).isEqualTo(200);
        Pod stored = fixture.client.pods().inNamespace(ns).withName("p").get();
        assertThat(stored.getSpec().getContainers().get(0).getImage()).isEqualTo("busybox:2");
        assertThat(stored.getSpec().getRestartPolicy()).isEqualTo("Always");
        assertThat(stored.getSpec().getTerminationGracePeriodSeconds()).isEqualTo(30L);

        HttpResponse<String> same = fixture.send("PUT", podPath(ns, "p"), JSON, """
                {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},
                 "spec":{"containers":[{"name":"c","image":"busybox:2"}]}}""");
        assertThat(parse(same).at("/metadata/resourceVersion").asString())
                .isEqualTo(stored.getMetadata().getResourceVersion());
        assertThat(parse(same).at("/metadata/generation").asLong()).isEqualTo(stored.getMetadata().getGeneration());
    }

    @Test
    void aNullContainerIsAnInvalidUpdateNotAServerError() {
        String ns = fixture.namespace();
        create(ns, basicPod("p").build());

        HttpResponse<String> response = fixture.send("PUT", podPath(ns, "p"), JSON, """
                {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[null]}}""");

        assertThat(response.statusCode()).as(response.body()).isEqualTo(422);
    }

    @Test
    void aGatedPodCannotBeBound() {
        String ns = fixture.namespace();
        create(ns, basicPod("gated").editSpec().addNewSchedulingGate("example.com/wait").endSpec().build());

        HttpResponse<String> bound = fixture.send("POST", podPath(ns, "gated") + "/binding", JSON,
                "{\"apiVersion\":\"v1\",\"kind\":\"Binding\",\"metadata\":{\"name\":\"gated\"},"
                        + "\"target\":{\"kind\":\"Node\",\"name\":\"node-1\"}}");

        assertThat(bound.statusCode()).isEqualTo(409);
        assertThat(parse(bound).path("message").asString())
                .isEqualTo("Operation cannot be fulfilled on pods/binding \"gated\": pod gated has non-empty "
                        + ".spec.schedulingGates");
    }

    @Test
    void tolerationsMayOnlyBeAdded() {
        PodResource pod = create(basicPod("p").editSpec().addToTolerations(new TolerationBuilder().withKey("a")
                .withOperator("Exists").withEffect("NoExecute").withTolerationSeconds(60L).build()).endSpec().build());

        Pod added = pod.edit(p -> new PodBuilder(p).editSpec().addToTolerations(new TolerationBuilder().withKey("b")
                .withOperator("Equal").withValue("v").build()).editFirstToleration().withTolerationSeconds(10L)
                .endToleration().endSpec().build());
        assertThat(added.getSpec().getTolerations()).extracting(t -> t.getKey() + "/" + t.getTolerationSeconds())
                .containsExactly("a/10", "b/null");

        assertForbidden(pod, p -> new PodBuilder(p).editSpec().removeFromTolerations(p.getSpec().getTolerations()
                .get(0)).endSpec().build(),
                "spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds");
        assertForbidden(pod, p -> new PodBuilder(p).editSpec().editLastToleration().withValue("w").endToleration()
                .endSpec().build(),
                "spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds");
    }

    @Test
    void activeDeadlineSecondsMayBeSetOrLowered() {
        PodResource pod = create(basicPod("p").build());

        assertThat(pod.edit(p -> new PodBuilder(p).editSpec().withActiveDeadlineSeconds(600L).endSpec().build())
                .getSpec().getActiveDeadlineSeconds()).isEqualTo(600L);
        assertThat(pod.edit(p -> new PodBuilder(p).editSpec().withActiveDeadlineSeconds(300L).endSpec().build())
                .getSpec().getActiveDeadlineSeconds()).isEqualTo(300L);

        assertForbidden(pod, p -> new PodBuilder(p).editSpec().withActiveDeadlineSeconds(900L).endSpec().build(),
                "spec.activeDeadlineSeconds: Invalid value: 900: must be less than or equal to previous value");
        assertForbidden(pod, p -> new PodBuilder(p).editSpec().withActiveDeadlineSeconds(null).endSpec().build(),
                "spec.activeDeadlineSeconds: Invalid value: null: must not update from a positive integer to nil "
                        + "value");
        assertThat(pod.get().getSpec().getActiveDeadlineSeconds()).isEqualTo(300L);
    }

    @Test
    void schedulingGatesMayOnlyBeRemovedAndAGatedPodMayGainNodeSelectorEntries() {
        PodResource pod = create(basicPod("p").editSpec().addNewSchedulingGate().withName("a").endSchedulingGate()
                .addNewSchedulingGate().withName("b").endSchedulingGate().addToNodeSelector("zone", "z1").endSpec()
                .build());

        Pod selected = pod.edit(p -> new PodBuilder(p).editSpec().addToNodeSelector("rack", "r1").endSpec().build());
        assertThat(selected.getSpec().getNodeSelector()).containsEntry("rack", "r1");
        assertForbidden(pod, p -> new PodBuilder(p).editSpec().addToNodeSelector("zone", "z2").endSpec().build(),
                "spec.nodeSelector: Invalid value: {\"rack\":\"r1\",\"zone\":\"z2\"}: only additions to "
                        + "spec.nodeSelector are allowed (no mutations or deletions)");
        assertForbidden(pod, p -> new PodBuilder(p).editSpec().addNewSchedulingGate().withName("c")
                .endSchedulingGate().endSpec().build(),
                "spec.schedulingGates[2].name: Forbidden: only deletion is allowed, but found new scheduling gate 'c'");

        Pod ungated = pod.edit(p -> new PodBuilder(p).editSpec().withSchedulingGates().endSpec().build());
        assertThat(ungated.getSpec().getSchedulingGates()).isEmpty();
        assertForbidden(pod, p -> new PodBuilder(p).editSpec().addToNodeSelector("row", "1").endSpec().build(),
                FORBIDDEN);
    }

    @Test
    void aGatedPodMayOnlyNarrowItsRequiredNodeAffinity() {
        NodeSelectorRequirement zone = new NodeSelectorRequirementBuilder().withKey("zone").withOperator("In")
                .withValues("z1").build();
        NodeSelectorRequirement gpu = new NodeSelectorRequirementBuilder().withKey("gpu").withOperator("Exists")
                .build();
        PodResource pod = create(basicPod("p").editSpec().addNewSchedulingGate().withName("a").endSchedulingGate()
                .withNewAffinity().withNewNodeAffinity().withNewRequiredDuringSchedulingIgnoredDuringExecution()
                .addNewNodeSelectorTerm().withMatchExpressions(zone).endNodeSelectorTerm()
                .endRequiredDuringSchedulingIgnoredDuringExecution().endNodeAffinity().endAffinity().endSpec().build());

        Pod narrowed = pod.edit(p -> withTerms(p, List.of(new NodeSelectorTermBuilder().withMatchExpressions(zone, gpu)
                .build())));
        assertThat(narrowed.getSpec().getAffinity().getNodeAffinity()
                .getRequiredDuringSchedulingIgnoredDuringExecution().getNodeSelectorTerms().get(0)
                .getMatchExpressions()).hasSize(2);

        String terms = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms";
        String invalid = "Pod \"p\" is invalid: " + terms;
        assertThatThrownBy(() -> pod.edit(p -> withTerms(p, List.of(new NodeSelectorTermBuilder()
                .withMatchExpressions(gpu).build())))).isInstanceOfSatisfying(KubernetesClientException.class,
                        e -> assertThat(e.getStatus().getMessage()).startsWith(invalid + "[0]: ")
                                .endsWith(": only additions are allowed (no mutations or deletions)"));
        assertThatThrownBy(() -> pod.edit(p -> withTerms(p, List.of(new NodeSelectorTermBuilder()
                .withMatchExpressions(zone, gpu).build(), new NodeSelectorTermBuilder().withMatchExpressions(gpu)
                .build())))).isInstanceOfSatisfying(KubernetesClientException.class,
                        e -> assertThat(e.getStatus().getMessage()).startsWith(invalid + ": ")
                                .endsWith(": no additions/deletions to non-empty NodeSelectorTerms list are allowed"));
    }

    @Test
    void theNodeIsSetByBindingNotByAnUpdate() {
        String ns = fixture.namespace();
        PodResource pod = create(ns, basicPod("p").build());

        assertForbidden(pod, p -> new PodBuilder(p).editSpec().withNodeName("node-1").endSpec().build(), FORBIDDEN);

        HttpResponse<String> bound = fixture.send("POST", podPath(ns, "p") + "/binding", JSON,
                "{\"apiVersion\":\"v1\",\"kind\":\"Binding\",\"metadata\":{\"name\":\"p\"},"
                        + "\"target\":{\"kind\":\"Node\",\"name\":\"node-1\"}}");
        assertThat(bound.statusCode()).isEqualTo(201);
        assertThat(pod.get().getSpec().getNodeName()).isEqualTo("node-1");

        assertForbidden(pod, p -> new PodBuilder(p).editSpec().withNodeName("node-2").endSpec().build(), FORBIDDEN);
        Pod relabelled = pod.edit(p -> new PodBuilder(p).editMetadata().addToLabels("bound", "yes").endMetadata()
                .build());
        assertThat(relabelled.getSpec().getNodeName()).isEqualTo("node-1");
    }

    @Test
    void statusUpdatesAreNotLimitedBySpecRules() {
        String ns = fixture.namespace();
        PodResource pod = create(ns, basicPod("p").build());

        Pod running = pod.editStatus(p -> new PodBuilder(p).editStatus().withPhase("Running").withPodIP("10.0.0.1")
                .endStatus().editSpec().editFirstContainer().withCommand("ignored").endContainer().endSpec().build());

        assertThat(running.getStatus().getPhase()).isEqualTo("Running");
        assertThat(running.getSpec().getContainers().get(0).getCommand()).isEmpty();
        HttpResponse<String> patched = fixture.send("PATCH", podPath(ns, "p") + "/status",
                "application/merge-patch+json", "{\"status\":{\"phase\":\"Succeeded\"}}");
        assertThat(patched.statusCode()).isEqualTo(200);
        assertThat(pod.get().getStatus().getPhase()).isEqualTo("Succeeded");

        HttpResponse<String> replaced = fixture.send("PUT", podPath(ns, "p") + "/status", JSON,
                "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},"
                        + "\"status\":{\"phase\":\"Failed\"}}");
        assertThat(replaced.statusCode()).isEqualTo(200);
        assertThat(pod.get().getStatus().getQosClass()).as("kept when a status write leaves it out")
                .isEqualTo("BestEffort");
    }

    @Test
    void podsGetTheirQosClassOnCreate() {
        String ns = fixture.namespace();
        Pod bestEffort = create(ns, basicPod("best-effort").build()).get();
        Pod guaranteed = create(ns, basicPod("guaranteed").editSpec().withContainers(container("c",
                Map.of(), Map.of("cpu", "500m", "memory", "1Gi"))).endSpec().build()).get();
        Pod guaranteedWithInit = create(ns, basicPod("guaranteed-init").editSpec()
                .withContainers(container("c", Map.of("cpu", "1", "memory", "1Gi"),
                        Map.of("cpu", "1", "memory", "1Gi")))
                .withInitContainers(container("i", Map.of(), Map.of("cpu", "100m", "memory", "64Mi")))
                .endSpec().build()).get();
        Pod requestsOnly = create(ns, basicPod("requests-only").editSpec().withContainers(container("c",
                Map.of("cpu", "100m"), Map.of())).endSpec().build()).get();
        Pod unequal = create(ns, basicPod("unequal").editSpec().withContainers(container("c",
                Map.of("cpu", "100m", "memory", "1Gi"), Map.of("cpu", "200m", "memory", "1Gi"))).endSpec().build())
                .get();
        Pod initWithout = create(ns, basicPod("init-without").editSpec()
                .withContainers(container("c", Map.of(), Map.of("cpu", "1", "memory", "1Gi")))
                .withInitContainers(container("i", Map.of(), Map.of())).endSpec().build()).get();

        assertThat(bestEffort.getStatus().getQosClass()).isEqualTo("BestEffort");
        assertThat(guaranteed.getStatus().getQosClass()).isEqualTo("Guaranteed");
        assertThat(guaranteed.getSpec().getContainers().get(0).getResources().getRequests())
                .isEqualTo(Map.of("cpu", new Quantity("500m"), "memory", new Quantity("1Gi")));
        assertThat(guaranteedWithInit.getStatus().getQosClass()).isEqualTo("Guaranteed");
        assertThat(requestsOnly.getStatus().getQosClass()).isEqualTo("Burstable");
        assertThat(unequal.getStatus().getQosClass()).isEqualTo("Burstable");
        assertThat(initWithout.getStatus().getQosClass()).isEqualTo("Burstable");

        Pod emptyPodLevel = create(ns, basicPod("empty-pod-level").editSpec().withNewResources().endResources()
                .withContainers(container("c", Map.of(), Map.of("cpu", "1", "memory", "1Gi"))).endSpec().build())
                .get();
        assertThat(emptyPodLevel.getStatus().getQosClass())
                .as("before 1.37 any spec.resources decides, even empty (PodQosClassTest has the 1.37 rule)")
                .isEqualTo("BestEffort");

        Pod huge = create(ns, basicPod("huge").editSpec().withContainers(
                container("a", Map.of("cpu", "1e999999999"), Map.of()),
                container("b", Map.of("cpu", "1e-99999999"), Map.of())).endSpec().build()).get();
        assertThat(huge.getStatus().getQosClass()).as("quantities bounded as Go bounds them, summed at once")
                .isEqualTo("Burstable");
    }

    private static Pod withTerms(Pod pod, List<NodeSelectorTerm> terms) {
        return new PodBuilder(pod).editSpec().editAffinity().editNodeAffinity()
                .editRequiredDuringSchedulingIgnoredDuringExecution().withNodeSelectorTerms(terms)
                .endRequiredDuringSchedulingIgnoredDuringExecution().endNodeAffinity().endAffinity().endSpec().build();
    }

    @Test
    void theResizeSubresourceChangesOnlyResourcesAndBumpsTheGeneration() {
        String ns = fixture.namespace();
        create(ns, basicPod("p").editSpec().withContainers(container("c", Map.of("cpu", "500m", "memory", "500Mi"),
                Map.of("cpu", "1", "memory", "1Gi"))).endSpec().build());

        HttpResponse<String> resized = fixture.send("PATCH", podPath(ns, "p") + "/resize",
                "application/strategic-merge-patch+json", """
                {"metadata":{"labels":{"ignored":"yes"}},"spec":{"containers":[{"name":"c","image":"other",
                 "resources":{"requests":{"cpu":"750m"},"limits":{"cpu":"1500m"}}}]}}""");

        assertThat(resized.statusCode()).as(resized.body()).isEqualTo(200);
        Pod pod = fixture.client.pods().inNamespace(ns).withName("p").get();
        Container c = pod.getSpec().getContainers().get(0);
        assertThat(c.getResources().getRequests()).containsEntry("cpu", new Quantity("750m"))
                .containsEntry("memory", new Quantity("500Mi"));
        assertThat(c.getResources().getLimits()).containsEntry("cpu", new Quantity("1500m"));
        assertThat(c.getImage()).as("only resources change").isEqualTo("busybox");
        assertThat(pod.getMetadata().getLabels()).doesNotContainKey("ignored");
        assertThat(pod.getMetadata().getGeneration()).isEqualTo(2L);
        assertThat(fixture.send("GET", podPath(ns, "p") + "/resize", JSON, null).statusCode()).isEqualTo(200);
    }

    @Test
    void aResizeMayNotChangeTheQosClassNorOtherResources() {
        String ns = fixture.namespace();
        create(ns, basicPod("p").editSpec().withContainers(container("c", Map.of("cpu", "1", "memory", "1Gi"),
                Map.of("cpu", "1", "memory", "1Gi"))).endSpec().build());

        HttpResponse<String> burstable = fixture.send("PATCH", podPath(ns, "p") + "/resize",
                "application/strategic-merge-patch+json", """
                {"spec":{"containers":[{"name":"c","resources":{"limits":{"cpu":"2"}}}]}}""");
        assertThat(burstable.statusCode()).isEqualTo(422);
        assertThat(parse(burstable).path("message").asString())
                .contains("spec: Invalid value: \"Guaranteed\": Pod QOS Class may not change as a result of resizing");

        HttpResponse<String> storage = fixture.send("PATCH", podPath(ns, "p") + "/resize",
                "application/strategic-merge-patch+json", """
                {"spec":{"containers":[{"name":"c","resources":{"limits":{"ephemeral-storage":"1Gi"}}}]}}""");
        assertThat(storage.statusCode()).isEqualTo(422);
        assertThat(parse(storage).path("message").asString()).contains(
                "spec.containers[0].resources.limits[ephemeral-storage]: Forbidden: only cpu and memory resources are"
                        + " mutable");
    }

    private static PodBuilder basicPod(String name) {
        return new PodBuilder().withNewMetadata().withName(name).endMetadata().withNewSpec().addNewContainer()
                .withName("c").withImage("busybox").endContainer().endSpec();
    }

    private static Container container(String name, Map<String, String> requests, Map<String, String> limits) {
        ContainerBuilder container = new ContainerBuilder().withName(name).withImage("busybox");
        if (!requests.isEmpty() || !limits.isEmpty()) {
            container.withNewResources().withRequests(quantities(requests)).withLimits(quantities(limits))
                    .endResources();
        }
        return container.build();
    }

    private static Map<String, Quantity> quantities(Map<String, String> amounts) {
        Map<String, Quantity> quantities = new TreeMap<>();
        amounts.forEach((resource, amount) -> quantities.put(resource, new Quantity(amount)));
        return quantities.isEmpty() ? null : quantities;
    }

    private static PodResource create(Pod pod) {
        return create(fixture.namespace(), pod);
    }

    private static PodResource create(String ns, Pod pod) {
        fixture.client.pods().inNamespace(ns).resource(pod).create();
        return fixture.client.pods().inNamespace(ns).withName(pod.getMetadata().getName());
    }

    private static void assertForbidden(PodResource pod, UnaryOperator<Pod> change, String error) {
        String name = pod.get().getMetadata().getName();
        assertThatThrownBy(() -> pod.edit(change)).isInstanceOfSatisfying(KubernetesClientException.class, e -> {
            assertThat(e.getCode()).isEqualTo(422);
            assertThat(e.getStatus().getMessage()).isEqualTo("Pod \"" + name + "\" is invalid: " + error);
        });
    }

    private static String podPath(String ns, String name) {
        return "/api/v1/namespaces/" + ns + "/pods/" + name;
    }

    private static JsonNode parse(HttpResponse<String> response) {
        return Json.parse(response.body().getBytes(StandardCharsets.UTF_8));
    }
}
