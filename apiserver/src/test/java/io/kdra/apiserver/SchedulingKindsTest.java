package io.kdra.apiserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.scheduling.v1beta1.PodGroup;
import io.fabric8.kubernetes.api.model.scheduling.v1beta1.PodGroupBuilder;
import io.fabric8.kubernetes.api.model.scheduling.v1beta1.Workload;
import io.fabric8.kubernetes.api.model.scheduling.v1beta1.WorkloadBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.kdra.kube.FeatureGates;
import io.kdra.kube.KubernetesVersion;
import org.junit.jupiter.api.Test;

/** Workload and PodGroup of scheduling.k8s.io/v1beta1: served behind GenericWorkload, validated, claims gated. */
class SchedulingKindsTest {

    private static final KubernetesVersion V1_36 = new KubernetesVersion(1, 36);

    private static ServerFixture server(String gates) {
        return new ServerFixture(ApiServerConfig.defaults().withKubernetesVersion("1.36")
                .withFeatureGates(FeatureGates.parse(V1_36, gates)));
    }

    private static Workload workload(String ns) {
        return new WorkloadBuilder().withNewMetadata().withName("w").withNamespace(ns).endMetadata()
                .withNewSpec().addNewPodGroupTemplate().withName("group").withNewSchedulingPolicy()
                .withNewBasic().endBasic().endSchedulingPolicy()
                .addNewResourceClaim().withName("my-inline-claim").withResourceClaimTemplateName("w")
                .endResourceClaim().endPodGroupTemplate().endSpec().build();
    }

    private static PodGroup podGroup(String ns) {
        return new PodGroupBuilder().withNewMetadata().withName("w-group-0").withNamespace(ns).endMetadata()
                .withNewSpec().withNewWorkloadRef().withWorkloadName("w").withTemplateName("group").endWorkloadRef()
                .withNewSchedulingPolicy().withNewBasic().endBasic().endSchedulingPolicy()
                .addNewResourceClaim().withName("resource-claim").withResourceClaimName("external-claim")
                .endResourceClaim().endSpec().build();
    }

    @Test
    void workloadsAndPodGroupsAreServedWithTheirClaims() {
        try (ServerFixture fixture = server("GenericWorkload=true,DRAWorkloadResourceClaims=true")) {
            Workload workload = fixture.client.resource(workload(fixture.namespace())).create();
            assertThat(workload.getSpec().getPodGroupTemplates().get(0).getResourceClaims()).hasSize(1);
            PodGroup podGroup = fixture.client.resource(podGroup(fixture.namespace())).create();
            assertThat(podGroup.getSpec().getResourceClaims()).hasSize(1);

            podGroup.setStatus(new io.fabric8.kubernetes.api.model.scheduling.v1beta1.PodGroupStatusBuilder()
                    .addNewResourceClaimStatus().withName("resource-claim").endResourceClaimStatus().build());
            assertThat(fixture.client.resource(podGroup).updateStatus().getStatus().getResourceClaimStatuses())
                    .hasSize(1);
        }
    }

    @Test
    void claimsAreDroppedWhileDraWorkloadResourceClaimsIsOff() {
        try (ServerFixture fixture = server("GenericWorkload=true")) {
            Workload workload = fixture.client.resource(workload(fixture.namespace())).create();
            assertThat(workload.getSpec().getPodGroupTemplates().get(0).getResourceClaims()).isNullOrEmpty();
            PodGroup podGroup = fixture.client.resource(podGroup(fixture.namespace())).create();
            assertThat(podGroup.getSpec().getResourceClaims()).isNullOrEmpty();
        }
    }

    @Test
    void withoutGenericWorkloadTheKindsAreNotServedAndPodsJoinNoGroup() {
        try (ServerFixture fixture = server("")) {
            assertThatThrownBy(() -> fixture.client.resource(podGroup(fixture.namespace())).create())
                    .isInstanceOfSatisfying(KubernetesClientException.class,
                            e -> assertThat(e.getCode()).isEqualTo(404));
            assertThat(fixture.client.resource(groupedPod(fixture.namespace())).create().getSpec()
                    .getSchedulingGroup()).isNull();
        }
        try (ServerFixture fixture = server("GenericWorkload=true")) {
            assertThat(fixture.client.resource(groupedPod(fixture.namespace())).create().getSpec()
                    .getSchedulingGroup().getPodGroupName()).isEqualTo("w-group-0");
        }
    }

    private static Pod groupedPod(String ns) {
        return new PodBuilder().withNewMetadata().withName("p").withNamespace(ns).endMetadata().withNewSpec()
                .withNewSchedulingGroup().withPodGroupName("w-group-0").endSchedulingGroup()
                .addNewContainer().withName("c").withImage("busybox").endContainer().endSpec().build();
    }

    @Test
    void invalidObjectsAreRejectedNamingTheField() {
        try (ServerFixture fixture = server("GenericWorkload=true,DRAWorkloadResourceClaims=true")) {
            PodGroup bothClaimSources = podGroup(fixture.namespace());
            bothClaimSources.getSpec().getResourceClaims().get(0).setResourceClaimTemplateName("template");
            assertInvalid(fixture, bothClaimSources, "spec.resourceClaims[0]",
                    "must specify exactly one of: `resourceClaimName`, `resourceClaimTemplateName`");

            PodGroup noPolicy = podGroup(fixture.namespace());
            noPolicy.getSpec().getSchedulingPolicy().setBasic(null);
            assertInvalid(fixture, noPolicy, "spec.schedulingPolicy", "must specify one of: `basic`, `gang`");

            Workload badTemplateName = workload(fixture.namespace());
            badTemplateName.getSpec().getPodGroupTemplates().get(0).setName("Group");
            assertInvalid(fixture, badTemplateName, "spec.podGroupTemplates[0].name", "RFC 1123 label");

            PodGroup created = fixture.client.resource(podGroup(fixture.namespace())).create();
            created.getSpec().getResourceClaims().get(0).setResourceClaimName("other-claim");
            assertThatThrownBy(() -> fixture.client.resource(created).update())
                    .isInstanceOfSatisfying(KubernetesClientException.class, e -> {
                        assertThat(e.getCode()).isEqualTo(422);
                        assertThat(e.getStatus().getMessage()).contains("spec: Invalid value")
                                .contains("field is immutable");
                    });
        }
    }

    private static void assertInvalid(ServerFixture fixture,
            io.fabric8.kubernetes.api.model.HasMetadata object, String field, String detail) {
        assertThatThrownBy(() -> fixture.client.resource(object).create())
                .isInstanceOfSatisfying(KubernetesClientException.class, e -> {
                    assertThat(e.getCode()).isEqualTo(422);
                    assertThat(e.getStatus().getMessage()).contains(field).contains(detail);
                });
    }
}
