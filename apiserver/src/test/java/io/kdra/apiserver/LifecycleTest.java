package io.kdra.apiserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.DeletionPropagation;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LifecycleTest extends ServerTestBase {

    private static final Duration PATIENCE = Duration.ofSeconds(30);
    @Test
    void finalizersKeepADeletedObjectUntilRemoved() {
        String ns = fixture.namespace();
        var cms = fixture.client.configMaps().inNamespace(ns);
        cms.resource(new ConfigMapBuilder().withNewMetadata().withName("f").withFinalizers("example.com/hold")
                .endMetadata().build()).create();
        cms.withName("f").delete();
        ConfigMap terminating = cms.withName("f").get();
        assertThat(terminating.getMetadata().getDeletionTimestamp()).isNotNull();
        cms.withName("f").edit(c -> new ConfigMapBuilder(c).editMetadata().withFinalizers(List.of()).endMetadata()
                .build());
        assertThat(cms.withName("f").get()).isNull();
    }

    @Test
    void scheduledPodsAreDeletedGracefullyAndGraceZeroRemovesAtOnce() {
        String ns = fixture.namespace();
        var pods = fixture.client.pods().inNamespace(ns);
        pods.resource(WatchTest.pod("bound", "node-1")).create();
        pods.resource(new PodBuilder().withNewMetadata().withName("pending").endMetadata().withNewSpec()
                .addNewContainer().withName("c").withImage("i").endContainer().endSpec().build()).create();
        pods.withName("pending").delete();
        assertThat(pods.withName("pending").get()).isNull();
        pods.withName("bound").delete();
        Pod terminating = pods.withName("bound").get();
        assertThat(terminating.getMetadata().getDeletionGracePeriodSeconds()).isEqualTo(30L);
        pods.withName("bound").withGracePeriod(0).delete();
        assertThat(pods.withName("bound").get()).isNull();
    }

    @Test
    void garbageCollectionInAllThreePropagationModes() {
        String ns = fixture.namespace();
        var cms = fixture.client.configMaps().inNamespace(ns);
        for (String mode : List.of("background", "foreground", "orphan")) {
            ConfigMap owner = cms.resource(WatchTest.cm(mode + "-owner", Map.of())).create();
            cms.resource(new ConfigMapBuilder().withNewMetadata().withName(mode + "-dependent")
                    .addNewOwnerReference().withApiVersion("v1").withKind("ConfigMap")
                    .withName(owner.getMetadata().getName()).withUid(owner.getMetadata().getUid())
                    .withBlockOwnerDeletion(true).endOwnerReference().endMetadata().build()).create();
        }
        cms.withName("background-owner").withPropagationPolicy(DeletionPropagation.BACKGROUND).delete();
        cms.withName("foreground-owner").withPropagationPolicy(DeletionPropagation.FOREGROUND).delete();
        cms.withName("orphan-owner").withPropagationPolicy(DeletionPropagation.ORPHAN).delete();
        await().atMost(PATIENCE).untilAsserted(() -> {
            assertThat(cms.withName("background-dependent").get()).isNull();
            assertThat(cms.withName("foreground-dependent").get()).isNull();
            assertThat(cms.withName("foreground-owner").get()).isNull();
            assertThat(cms.withName("orphan-owner").get()).isNull();
            ConfigMap orphan = cms.withName("orphan-dependent").get();
            assertThat(orphan).isNotNull();
            assertThat(orphan.getMetadata().getOwnerReferences()).isEmpty();
        });
    }

    @Test
    void deletingANamespaceRemovesItsContent() {
        String ns = fixture.namespace();
        fixture.client.configMaps().inNamespace(ns).resource(WatchTest.cm("content", Map.of())).create();
        fixture.client.namespaces().withName(ns).delete();
        await().atMost(PATIENCE).untilAsserted(() -> assertThat(fixture.client.namespaces().withName(ns).get())
                .isNull());
        assertThat(fixture.client.configMaps().inNamespace(ns).list().getItems()).isEmpty();
    }

    @Test
    void dryRunUpdatePatchAndDeleteAnswerAsIfDoneButCommitNothing() {
        String ns = fixture.namespace();
        var cms = fixture.client.configMaps().inNamespace(ns);
        ConfigMap stored = cms.resource(new ConfigMapBuilder().withNewMetadata().withName("dry")
                .withFinalizers("example.com/hold").endMetadata().withData(Map.of("k", "v")).build()).create();
        String path = "/api/v1/namespaces/" + ns + "/configmaps/dry?dryRun=All";

        var put = fixture.send("PUT", path, "application/json",
                json(new ConfigMapBuilder(stored).withData(Map.of("k", "put")).build()));
        assertThat(put.statusCode()).isEqualTo(200);
        assertThat(configMap(put.body()).getData()).containsExactly(Map.entry("k", "put"));

        var patch = fixture.send("PATCH", path, "application/merge-patch+json", "{\"data\":{\"k\":\"patched\"}}");
        assertThat(patch.statusCode()).isEqualTo(200);
        assertThat(configMap(patch.body()).getData()).containsExactly(Map.entry("k", "patched"));

        var delete = fixture.send("DELETE", path, null, null);
        assertThat(delete.statusCode()).isEqualTo(200);
        ConfigMap deleting = configMap(delete.body());
        assertThat(deleting.getMetadata().getDeletionTimestamp()).isNotNull();
        assertThat(deleting.getMetadata().getFinalizers()).containsExactly("example.com/hold");

        ConfigMap after = cms.withName("dry").get();
        assertThat(after.getMetadata().getResourceVersion()).isEqualTo(stored.getMetadata().getResourceVersion());
        assertThat(after.getData()).containsExactly(Map.entry("k", "v"));
        assertThat(after.getMetadata().getDeletionTimestamp()).isNull();

        cms.withName("dry").edit(c -> new ConfigMapBuilder(c).editMetadata().withFinalizers(List.of()).endMetadata()
                .build());
        var immediate = fixture.send("DELETE", path, null, null);
        assertThat(immediate.statusCode()).isEqualTo(200);
        assertThat(immediate.body()).contains("\"kind\":\"Status\"", "\"status\":\"Success\"");
        assertThat(cms.withName("dry").get()).isNotNull();

        // kubectl delete --dry-run=server says it in the DeleteOptions body, not in the query
        String withoutQuery = path.substring(0, path.indexOf('?'));
        var inBody = fixture.send("DELETE", withoutQuery, "application/json",
                "{\"kind\":\"DeleteOptions\",\"apiVersion\":\"v1\",\"dryRun\":[\"All\"]}");
        assertThat(inBody.statusCode()).isEqualTo(200);
        assertThat(cms.withName("dry").get()).isNotNull();
        var unsupported = fixture.send("DELETE", withoutQuery, "application/json", "{\"dryRun\":[\"Some\"]}");
        assertThat(unsupported.statusCode()).isEqualTo(422);
        assertThat(unsupported.body()).contains(
                "dryRun: Unsupported value: \\\"Some\\\": supported values: \\\"All\\\"");
        assertThat(cms.withName("dry").get()).isNotNull();
    }

    @Test
    void foregroundDeletionKeepsTheOwnerUntilItsHeldDependentIsGone() {
        String ns = fixture.namespace();
        var cms = fixture.client.configMaps().inNamespace(ns);
        ConfigMap owner = cms.resource(WatchTest.cm("owner", Map.of())).create();
        cms.resource(new ConfigMapBuilder().withNewMetadata().withName("dependent").withFinalizers("example.com/hold")
                .addNewOwnerReference().withApiVersion("v1").withKind("ConfigMap").withName("owner")
                .withUid(owner.getMetadata().getUid()).withBlockOwnerDeletion(true).endOwnerReference()
                .endMetadata().build()).create();

        cms.withName("owner").withPropagationPolicy(DeletionPropagation.FOREGROUND).delete();

        await().atMost(PATIENCE).untilAsserted(() -> {
            ConfigMap dependent = cms.withName("dependent").get();
            assertThat(dependent.getMetadata().getDeletionTimestamp()).isNotNull();
            assertThat(dependent.getMetadata().getFinalizers()).containsExactly("example.com/hold");
        });
        ConfigMap waiting = cms.withName("owner").get();
        assertThat(waiting.getMetadata().getDeletionTimestamp()).isNotNull();
        assertThat(waiting.getMetadata().getFinalizers()).containsExactly("foregroundDeletion");

        cms.withName("dependent").edit(c -> new ConfigMapBuilder(c).editMetadata().withFinalizers(List.of())
                .endMetadata().build());
        await().atMost(PATIENCE).untilAsserted(() -> {
            assertThat(cms.withName("dependent").get()).isNull();
            assertThat(cms.withName("owner").get()).isNull();
        });
    }

    private static String json(Object object) {
        return fixture.client.getKubernetesSerialization().asJson(object);
    }

    private static ConfigMap configMap(String json) {
        return fixture.client.getKubernetesSerialization().unmarshal(json, ConfigMap.class);
    }

    @Test
    void dryRunValidatesWithoutCommitting() {
        String ns = fixture.namespace();
        ConfigMap dry = fixture.client.configMaps().inNamespace(ns).resource(WatchTest.cm("dry", Map.of())).dryRun()
                .create();
        assertThat(dry.getMetadata().getUid()).isNotEmpty();
        assertThat(fixture.client.configMaps().inNamespace(ns).withName("dry").get()).isNull();
    }
}
