package io.kdra.cluster.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodResourceClaimStatus;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimConsumerReference;
import io.fabric8.kubernetes.api.model.scheduling.v1beta1.PodGroup;
import io.fabric8.kubernetes.api.model.scheduling.v1beta1.PodGroupBuilder;
import io.fabric8.kubernetes.api.model.scheduling.v1beta1.PodGroupResourceClaimStatus;
import io.kdra.cluster.PodGroupClaims;
import io.kdra.cluster.Timing;
import io.kdra.kube.FeatureGates;
import io.kdra.kube.KubernetesVersion;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** KEP-5729: a PodGroup's claims are reserved for the group, and its pods share them. */
class SchedulerPodGroupClaimsTest {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final FeatureGates GATES = FeatureGates.parse(new KubernetesVersion(1, 36),
            "GenericWorkload=true,DRAWorkloadResourceClaims=true");

    private SchedulerFixture cluster;

    @BeforeEach
    void start() {
        cluster = new SchedulerFixture(GATES, Timing.FAST);
        cluster.node("node-a");
        cluster.slice("node-a", 2);
        cluster.deviceClass(SchedulerFixture.CLASS);
    }

    @AfterEach
    void stop() {
        cluster.close();
    }

    private PodGroup podGroup(String name, String claimName, String templateName) {
        return cluster.client.resources(PodGroup.class).resource(new PodGroupBuilder().withNewMetadata()
                .withName(name).endMetadata().withNewSpec().withNewSchedulingPolicy().withNewBasic().endBasic()
                .endSchedulingPolicy().addNewResourceClaim().withName("gpu").withResourceClaimName(claimName)
                .withResourceClaimTemplateName(templateName).endResourceClaim().endSpec().build()).create();
    }

    private Pod groupedPod(String name, String group, String claimName, String templateName) {
        return cluster.client.pods().resource(SchedulerFixture.podBuilder(name).editSpec().withNewSchedulingGroup()
                .withPodGroupName(group).endSchedulingGroup().addNewResourceClaim().withName("gpu")
                .withResourceClaimName(claimName).withResourceClaimTemplateName(templateName).endResourceClaim()
                .endSpec().build()).create();
    }

    private List<ResourceClaimConsumerReference> reservedFor(String claim) {
        return cluster.claimNamed(claim).getStatus().getReservedFor();
    }

    @Test
    void podsOfAGroupShareItsClaimReservedForTheGroup() {
        cluster.claim("shared");
        PodGroup group = podGroup("pg", "shared", null);
        groupedPod("p1", "pg", "shared", null);
        groupedPod("p2", "pg", "shared", null);

        await().atMost(WAIT).until(() -> cluster.nodeOf("p1") != null && cluster.nodeOf("p2") != null);
        assertThat(reservedFor("shared")).singleElement().satisfies(consumer -> {
            assertThat(consumer.getApiGroup()).isEqualTo(PodGroupClaims.API_GROUP);
            assertThat(consumer.getResource()).isEqualTo(PodGroupClaims.RESOURCE);
            assertThat(consumer.getName()).isEqualTo("pg");
            assertThat(consumer.getUid()).isEqualTo(group.getMetadata().getUid());
        });
    }

    @Test
    void aClaimThatDiffersFromTheGroupsIsThePodsOwn() {
        cluster.claim("shared");
        podGroup("pg", "shared", null);
        Pod pod = cluster.client.pods().resource(SchedulerFixture.podBuilder("p").editSpec()
                .withNewSchedulingGroup().withPodGroupName("pg").endSchedulingGroup()
                .addNewResourceClaim().withName("other-name").withResourceClaimName("shared").endResourceClaim()
                .editFirstContainer().editResources().editFirstClaim().withName("other-name").endClaim()
                .endResources().endContainer().endSpec().build()).create();

        await().atMost(WAIT).until(() -> cluster.nodeOf("p") != null);
        assertThat(reservedFor("shared")).singleElement()
                .satisfies(consumer -> assertThat(consumer.getUid()).isEqualTo(pod.getMetadata().getUid()));
    }

    @Test
    void aClaimGeneratedForTheGroupIsUsedByItsPods() {
        PodGroup group = podGroup("pg", null, "template");
        Pod pod = groupedPod("p", "pg", null, "template");
        // what the resourceclaim controller does: a claim owned by the group, recorded in the group and the pod
        ResourceClaim claim = cluster.client.resources(ResourceClaim.class).resource(
                SchedulerFixture.claimBuilder("pg-gpu-abcde", SchedulerFixture.CLASS).editMetadata()
                        .addNewOwnerReference().withApiVersion(PodGroupClaims.API_VERSION).withKind(PodGroupClaims.KIND)
                        .withName("pg").withUid(group.getMetadata().getUid()).withController(true).endOwnerReference()
                        .endMetadata().build()).create();
        cluster.client.resources(PodGroup.class).withName("pg").editStatus(current -> new PodGroupBuilder(current)
                .editOrNewStatus().withResourceClaimStatuses(new PodGroupResourceClaimStatus("gpu",
                        claim.getMetadata().getName())).endStatus().build());
        cluster.client.pods().withName(pod.getMetadata().getName()).editStatus(current -> new PodBuilder(current)
                .editStatus().withResourceClaimStatuses(new PodResourceClaimStatus("gpu",
                        claim.getMetadata().getName())).endStatus().build());

        await().atMost(WAIT).until(() -> cluster.nodeOf("p") != null);
        assertThat(reservedFor("pg-gpu-abcde")).singleElement()
                .satisfies(consumer -> assertThat(consumer.getName()).isEqualTo("pg"));
    }
}
