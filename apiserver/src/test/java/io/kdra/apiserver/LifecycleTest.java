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
    void dryRunValidatesWithoutCommitting() {
        String ns = fixture.namespace();
        ConfigMap dry = fixture.client.configMaps().inNamespace(ns).resource(WatchTest.cm("dry", Map.of())).dryRun()
                .create();
        assertThat(dry.getMetadata().getUid()).isNotEmpty();
        assertThat(fixture.client.configMaps().inNamespace(ns).withName("dry").get()).isNull();
    }
}
