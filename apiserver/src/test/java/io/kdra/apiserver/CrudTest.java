package io.kdra.apiserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CrudTest extends ServerTestBase {

    @Test
    void createGetListUpdateDelete() {
        String ns = fixture.namespace();
        ConfigMap created = fixture.client.configMaps().inNamespace(ns).resource(new ConfigMapBuilder()
                .withNewMetadata().withName("cm").endMetadata().withData(Map.of("a", "1")).build()).create();
        assertThat(created.getMetadata().getUid()).isNotEmpty();
        assertThat(created.getMetadata().getCreationTimestamp()).endsWith("Z");
        assertThat(created.getMetadata().getResourceVersion()).isNotEmpty();

        ConfigMap fetched = fixture.client.configMaps().inNamespace(ns).withName("cm").get();
        assertThat(fetched.getData()).containsEntry("a", "1");
        assertThat(fixture.client.configMaps().inNamespace(ns).list().getItems()).hasSize(1);

        fetched.getData().put("a", "2");
        ConfigMap updated = fixture.client.configMaps().inNamespace(ns).resource(fetched).update();
        assertThat(Long.parseLong(updated.getMetadata().getResourceVersion()))
                .isGreaterThan(Long.parseLong(created.getMetadata().getResourceVersion()));

        fixture.client.configMaps().inNamespace(ns).withName("cm").delete();
        assertThat(fixture.client.configMaps().inNamespace(ns).withName("cm").get()).isNull();
    }

    @Test
    void staleResourceVersionIsAConflict() {
        String ns = fixture.namespace();
        ConfigMap created = fixture.client.configMaps().inNamespace(ns).resource(new ConfigMapBuilder()
                .withNewMetadata().withName("cm").endMetadata().build()).create();
        fixture.client.configMaps().inNamespace(ns).resource(new ConfigMapBuilder(created)
                .withData(Map.of("x", "y")).build()).update();

        assertThatThrownBy(() -> fixture.client.configMaps().inNamespace(ns)
                .resource(new ConfigMapBuilder(created).withData(Map.of("x", "z")).build()).update())
                .isInstanceOfSatisfying(KubernetesClientException.class, e -> {
                    assertThat(e.getCode()).isEqualTo(409);
                    assertThat(e.getStatus().getMessage()).isEqualTo("Operation cannot be fulfilled on configmaps "
                            + "\"cm\": the object has been modified; please apply your changes to the latest version "
                            + "and try again");
                });
    }

    @Test
    void generateNameAppendsFiveCharacters() {
        String ns = fixture.namespace();
        ConfigMap created = fixture.client.configMaps().inNamespace(ns).resource(new ConfigMapBuilder()
                .withNewMetadata().withGenerateName("gen-").endMetadata().build()).create();
        assertThat(created.getMetadata().getName()).matches("gen-[bcdfghjklmnpqrstvwxz2456789]{5}");
    }

    @Test
    void duplicateCreateAndMissingNamespace() {
        String ns = fixture.namespace();
        ConfigMap cm = new ConfigMapBuilder().withNewMetadata().withName("dup").endMetadata().build();
        fixture.client.configMaps().inNamespace(ns).resource(cm).create();
        assertThatThrownBy(() -> fixture.client.configMaps().inNamespace(ns).resource(cm).create())
                .isInstanceOfSatisfying(KubernetesClientException.class, e -> {
                    assertThat(e.getCode()).isEqualTo(409);
                    assertThat(e.getStatus().getReason()).isEqualTo("AlreadyExists");
                    assertThat(e.getStatus().getMessage()).isEqualTo("configmaps \"dup\" already exists");
                });
        assertThatThrownBy(() -> fixture.client.configMaps().inNamespace("nowhere").resource(cm).create())
                .isInstanceOfSatisfying(KubernetesClientException.class, e -> {
                    assertThat(e.getCode()).isEqualTo(404);
                    assertThat(e.getStatus().getMessage()).isEqualTo("namespaces \"nowhere\" not found");
                });
    }

    @Test
    void statusIsIsolatedFromTheMainResource() {
        String ns = fixture.namespace();
        ResourceClaim claim = new ResourceClaimBuilder().withNewMetadata().withName("claim").endMetadata()
                .withNewSpec().withNewDevices().addNewRequest().withName("req").withNewExactly()
                .withDeviceClassName("class").endExactly().endRequest().endDevices().endSpec()
                .withNewStatus().withNewAllocation().withNewDevices().addNewResult().withRequest("req")
                .withDriver("dra.example.com").withPool("pool").withDevice("dev").endResult().endDevices()
                .endAllocation().addNewReservedFor().withResource("pods").withName("p").withUid("u").endReservedFor()
                .endStatus().build();
        ResourceClaim created = fixture.client.dynamicResourceAllocation().v1().resourceClaims().inNamespace(ns)
                .resource(claim).create();
        assertThat(created.getStatus().getAllocation()).as("status reset to {}").isNull();
        assertThat(created.getStatus().getReservedFor()).isEmpty();
        assertThat(created.getMetadata().getGeneration()).isEqualTo(1L);

        created.setStatus(claim.getStatus());
        ResourceClaim withStatus = fixture.client.dynamicResourceAllocation().v1().resourceClaims().inNamespace(ns)
                .resource(created).updateStatus();
        assertThat(withStatus.getStatus().getReservedFor()).hasSize(1);

        withStatus.getStatus().setReservedFor(null);
        withStatus.getMetadata().setLabels(Map.of("a", "b"));
        ResourceClaim relabelled = fixture.client.dynamicResourceAllocation().v1().resourceClaims().inNamespace(ns)
                .resource(withStatus).update();
        assertThat(relabelled.getStatus().getReservedFor()).hasSize(1);
        assertThat(relabelled.getMetadata().getLabels()).containsEntry("a", "b");
        assertThat(relabelled.getMetadata().getGeneration()).isEqualTo(1L);

        relabelled.getMetadata().setLabels(Map.of());
        relabelled.getStatus().setReservedFor(null);
        ResourceClaim statusOnly = fixture.client.dynamicResourceAllocation().v1().resourceClaims().inNamespace(ns)
                .resource(relabelled).updateStatus();
        assertThat(statusOnly.getMetadata().getLabels()).containsEntry("a", "b");
        assertThat(statusOnly.getStatus().getReservedFor()).isNullOrEmpty();

        assertThatThrownBy(() -> fixture.client.dynamicResourceAllocation().v1().resourceClaims().inNamespace(ns)
                .resource(withStatus).updateStatus())
                .isInstanceOfSatisfying(KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(409));
    }
}
