package io.kdra.apiserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ContainerExtendedResourceRequest;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodExtendedResourceClaimStatus;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Container resource names and amounts (ValidateResourceRequirements), and the pod's extended-resource claim status. */
class ContainerResourceValidationTest extends ServerTestBase {

    @Test
    void extendedAndImplicitDeviceClassResourcesAreAccepted() {
        Pod pod = create(pod("ok", Map.of("example.com/gpu", "2", "deviceclass.resource.kubernetes.io/gpu-class", "1",
                "cpu", "100m")));

        assertThat(pod.getSpec().getContainers().get(0).getResources().getRequests())
                .containsKeys("example.com/gpu", "deviceclass.resource.kubernetes.io/gpu-class");
    }

    @Test
    void aNameWithoutDomainThatIsNoStandardResourceIsInvalid() {
        assertThatThrownBy(() -> create(pod("bad", Map.of("invalid_resource_name", "1"))))
                .isInstanceOfSatisfying(KubernetesClientException.class, e -> {
                    assertThat(e.getCode()).isEqualTo(422);
                    assertThat(e.getStatus().getReason()).isEqualTo("Invalid");
                    assertThat(e.getStatus().getMessage()).contains(
                            "spec.containers[0].resources.limits[invalid_resource_name]: Invalid value:"
                                    + " \"invalid_resource_name\": must be a standard resource for containers");
                });
    }

    @Test
    void extendedResourcesAreWholeAndEqualToTheirLimits() {
        assertThatThrownBy(() -> create(pod("half", Map.of("example.com/gpu", "500m"))))
                .hasMessageContaining("spec.containers[0].resources.requests[example.com/gpu]: Invalid value:"
                        + " \"500m\": must be an integer");
        Pod unequal = pod("unequal", Map.of("example.com/gpu", "1"));
        unequal.getSpec().getContainers().get(0).getResources().getLimits().put("example.com/gpu", new Quantity("2"));
        assertThatThrownBy(() -> create(unequal)).hasMessageContaining(
                "spec.containers[0].resources.requests[example.com/gpu]: Invalid value: \"1\": must be equal to"
                        + " example.com/gpu limit of 2");
        Pod noLimit = pod("nolimit", Map.of("example.com/gpu", "1"));
        noLimit.getSpec().getContainers().get(0).getResources().setLimits(null);
        assertThatThrownBy(() -> create(noLimit)).hasMessageContaining(
                "spec.containers[0].resources.limits: Required value: Limit must be set for non overcommitable"
                        + " resources");
    }

    @Test
    void theExtendedResourceClaimStatusIsKeptThroughStatusPatches() {
        Pod pod = create(pod("status", Map.of("example.com/gpu", "1")));
        String namespace = pod.getMetadata().getNamespace();
        PodExtendedResourceClaimStatus status = new PodExtendedResourceClaimStatus(List.of(
                new ContainerExtendedResourceRequest("c", "container-0-request-0", "example.com/gpu")),
                "status-extended-resources-abcde");

        fixture.client.pods().inNamespace(namespace).withName("status").editStatus(current ->
                new PodBuilder(current).editOrNewStatus().withExtendedResourceClaimStatus(status).endStatus().build());
        fixture.client.pods().inNamespace(namespace).withName("status").editStatus(current ->
                new PodBuilder(current).editOrNewStatus().withPhase("Pending").endStatus().build());

        Pod stored = fixture.client.pods().inNamespace(namespace).withName(pod.getMetadata().getName()).get();
        assertThat(stored.getStatus().getExtendedResourceClaimStatus()).isEqualTo(status);
    }

    private static Pod pod(String name, Map<String, String> amounts) {
        Map<String, Quantity> quantities = new java.util.TreeMap<>();
        amounts.forEach((resource, amount) -> quantities.put(resource, new Quantity(amount)));
        return new PodBuilder().withNewMetadata().withName(name).endMetadata().withNewSpec().addNewContainer()
                .withName("c").withImage("busybox").withNewResources().withRequests(quantities)
                .withLimits(new java.util.TreeMap<>(quantities)).endResources().endContainer().endSpec().build();
    }

    private static Pod create(Pod pod) {
        return fixture.client.pods().inNamespace(fixture.namespace()).resource(pod).create();
    }
}
