package io.kdra.cluster.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodResourceClaimStatus;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResultBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.scheduling.v1beta1.PodGroup;
import io.fabric8.kubernetes.api.model.scheduling.v1beta1.PodGroupBuilder;
import io.fabric8.kubernetes.api.model.scheduling.v1beta1.PodGroupResourceClaimStatus;
import io.kdra.cluster.PodGroupClaims;
import io.kdra.kube.FeatureGates;
import io.kdra.kube.KubernetesVersion;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The resourceclaim controller's part in KEP-5729: one claim per PodGroup and template, shared by its pods. */
class PodGroupClaimsControllerTest {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final FeatureGates GATES = FeatureGates.parse(new KubernetesVersion(1, 36),
            "GenericWorkload=true,DRAWorkloadResourceClaims=true");

    private static ControllerCluster cluster;
    private ResourceClaimController controller;
    private String ns;

    @BeforeAll
    static void startServer() {
        cluster = new ControllerCluster(GATES);
    }

    @AfterAll
    static void stopServer() {
        cluster.close();
    }

    @BeforeEach
    void startController() {
        controller = new ResourceClaimController(cluster.controllers, GATES).start();
        ns = cluster.namespace();
    }

    @AfterEach
    void stopController() {
        controller.close();
    }

    private PodGroup podGroup(String name) {
        return cluster.admin.resources(PodGroup.class).inNamespace(ns).resource(new PodGroupBuilder()
                .withNewMetadata().withName(name).endMetadata().withNewSpec().withNewSchedulingPolicy()
                .withNewBasic().endBasic().endSchedulingPolicy().addNewResourceClaim().withName("gpu")
                .withResourceClaimTemplateName("tmpl").endResourceClaim().endSpec().build()).create();
    }

    /** A pod of the group whose claim {@code gpu} from template {@code tmpl} matches the group's. */
    private Pod groupedPod(String name, String group) {
        return cluster.admin.pods().inNamespace(ns).resource(new PodBuilder().withNewMetadata().withName(name)
                .endMetadata().withNewSpec().withNewSchedulingGroup().withPodGroupName(group).endSchedulingGroup()
                .addNewResourceClaim().withName("gpu").withResourceClaimTemplateName("tmpl").endResourceClaim()
                .addNewContainer().withName("c").withImage("busybox").withNewResources().addNewClaim()
                .withName("gpu").endClaim().endResources().endContainer().endSpec().build()).create();
    }

    private List<ResourceClaim> claims() {
        return cluster.admin.resources(ResourceClaim.class).inNamespace(ns).list().getItems();
    }

    private String groupClaimName(String group) {
        return await().atMost(WAIT).until(() -> {
            PodGroup current = cluster.admin.resources(PodGroup.class).inNamespace(ns).withName(group).get();
            List<PodGroupResourceClaimStatus> statuses = current.getStatus() == null ? null
                    : current.getStatus().getResourceClaimStatuses();
            return statuses == null || statuses.isEmpty() ? null : statuses.get(0).getResourceClaimName();
        }, name -> name != null);
    }

    @Test
    void aGroupsTemplateBecomesOneClaimOwnedByTheGroupAndRecordedForItsPods() {
        Fixtures.template(cluster.admin, ns, "tmpl", null, null);
        PodGroup group = podGroup("pg");
        groupedPod("p1", "pg");
        groupedPod("p2", "pg");

        String name = groupClaimName("pg");
        assertThat(name).startsWith("pg-gpu-");
        ResourceClaim claim = cluster.admin.resources(ResourceClaim.class).inNamespace(ns).withName(name).get();
        assertThat(claim.getMetadata().getAnnotations())
                .containsEntry(PodClaims.POD_CLAIM_NAME_ANNOTATION, "gpu");
        OwnerReference owner = claim.getMetadata().getOwnerReferences().get(0);
        assertThat(owner.getApiVersion()).isEqualTo("scheduling.k8s.io/v1beta1");
        assertThat(owner.getKind()).isEqualTo("PodGroup");
        assertThat(owner.getUid()).isEqualTo(group.getMetadata().getUid());
        assertThat(owner.getController()).isTrue();
        for (String pod : List.of("p1", "p2")) {
            await().atMost(WAIT).untilAsserted(() -> assertThat(cluster.admin.pods().inNamespace(ns).withName(pod)
                    .get().getStatus().getResourceClaimStatuses()).containsExactly(
                            new PodResourceClaimStatus("gpu", name)));
        }
        assertThat(claims()).as("no claim of the pods' own").hasSize(1);
    }

    @Test
    void theGroupsReservationHoldsUntilTheGroupIsDeletedThenTheClaimGoes() {
        Fixtures.template(cluster.admin, ns, "tmpl", null, null);
        PodGroup group = podGroup("pg");
        String name = groupClaimName("pg");
        // what the scheduler writes for the group's first pod
        var claims = cluster.admin.resources(ResourceClaim.class).inNamespace(ns);
        ResourceClaim claim = claims.withName(name).edit(current -> new ResourceClaimBuilder(current).editMetadata()
                .addToFinalizers(PodClaims.DELETE_PROTECTION_FINALIZER).endMetadata().build());
        claims.resource(new ResourceClaimBuilder(claim).withNewStatus().withNewAllocation().withNewDevices()
                .withResults(new DeviceRequestAllocationResultBuilder().withRequest("dev").withDriver(Fixtures.DRIVER)
                        .withPool("node").withDevice("d0").build()).endDevices().endAllocation()
                .withReservedFor(PodGroupClaims.consumer(group)).endStatus().build()).updateStatus();

        await().during(Duration.ofSeconds(2)).atMost(WAIT).untilAsserted(() ->
                assertThat(claims.withName(name).get().getStatus().getReservedFor()).hasSize(1));

        cluster.admin.resources(PodGroup.class).inNamespace(ns).withName("pg").delete();
        await().atMost(WAIT).until(() -> claims.withName(name).get() == null);
    }
}
