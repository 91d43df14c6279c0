package io.kdra.cluster.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodResourceClaimStatus;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.kdra.kube.FeatureGates;
import io.kdra.kube.KubernetesVersion;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ResourceClaimControllerTest {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final FeatureGates GATES = FeatureGates.defaults(KubernetesVersion.parse("1.35"));

    private static ControllerCluster cluster;
    private ResourceClaimController controller;
    private String ns;

    @BeforeAll
    static void startServer() {
        cluster = new ControllerCluster();
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

    private List<ResourceClaim> claims() {
        return cluster.admin.resources(ResourceClaim.class).inNamespace(ns).list().getItems();
    }

    private ResourceClaim claim(String name) {
        return cluster.admin.resources(ResourceClaim.class).inNamespace(ns).withName(name).get();
    }

    private Pod pod(String name) {
        return cluster.admin.pods().inNamespace(ns).withName(name).get();
    }

    /** Waits until the controller recorded the claim generated for the pod's entry {@code gpu}. */
    private String generatedClaimName(String pod) {
        return await().atMost(WAIT).until(() -> {
            List<PodResourceClaimStatus> statuses = pod(pod).getStatus().getResourceClaimStatuses();
            return statuses == null || statuses.isEmpty() ? null : statuses.get(0).getResourceClaimName();
        }, name -> name != null);
    }

    @Test
    void createsTheClaimOfATemplateWithTheTemplatesMetadataAndThePodAsController() {
        Fixtures.template(cluster.admin, ns, "tmpl", Map.of("team", "a"), Map.of("note", "x"));
        Pod pod = Fixtures.pod(cluster.admin, ns, "p", "tmpl", null, null);

        String name = generatedClaimName("p");

        assertThat(name).startsWith("p-gpu-").hasSize("p-gpu-".length() + 5);
        ResourceClaim claim = claim(name);
        assertThat(claim.getMetadata().getAnnotations())
                .containsExactlyInAnyOrderEntriesOf(Map.of("note", "x", PodClaims.POD_CLAIM_NAME_ANNOTATION, "gpu"));
        assertThat(claim.getMetadata().getLabels()).containsExactlyEntriesOf(Map.of("team", "a"));
        OwnerReference owner = claim.getMetadata().getOwnerReferences().get(0);
        assertThat(owner.getApiVersion()).isEqualTo("v1");
        assertThat(owner.getKind()).isEqualTo("Pod");
        assertThat(owner.getName()).isEqualTo("p");
        assertThat(owner.getUid()).isEqualTo(pod.getMetadata().getUid());
        assertThat(owner.getController()).isTrue();
        assertThat(owner.getBlockOwnerDeletion()).isTrue();
        assertThat(claim.getSpec().getDevices().getRequests().get(0).getExactly().getDeviceClassName())
                .isEqualTo("gpu");
        assertThat(pod("p").getStatus().getResourceClaimStatuses()).singleElement()
                .satisfies(status -> assertThat(status.getName()).isEqualTo("gpu"));
        assertThat(claims()).hasSize(1);
    }

    @Test
    void longNamesAreCutInProportionSoTheClaimPartSurvives() {
        assertThat(ResourceClaimController.generateName("p", "c")).isEqualTo("p-c-");
        String pod = "a".repeat(50);
        String podClaim = "b".repeat(20);
        // 72 characters with the hyphens: each part keeps len*57/72
        assertThat(ResourceClaimController.generateName(pod, podClaim))
                .isEqualTo("a".repeat(39) + "-" + "b".repeat(15));

        Fixtures.template(cluster.admin, ns, "tmpl", null, null);
        String longPod = "pod-with-a-rather-long-name-that-goes-on-and-on-0123456789";
        Fixtures.pod(cluster.admin, ns, longPod, "tmpl", null, null);

        String name = generatedClaimName(longPod);
        assertThat(name).startsWith(ResourceClaimController.generateName(longPod, "gpu")).hasSizeLessThanOrEqualTo(63);
    }

    @Test
    void aRestartedControllerFindsTheClaimItCreatedInsteadOfCreatingAnother() {
        Fixtures.template(cluster.admin, ns, "tmpl", null, null);
        Fixtures.pod(cluster.admin, ns, "p", "tmpl", null, null);
        String name = generatedClaimName("p");
        controller.close();
        // as if the controller stopped after creating the claim and before recording it
        cluster.setStatus(ns, "p", "{\"resourceClaimStatuses\":null}");
        assertThat(pod("p").getStatus().getResourceClaimStatuses()).isNullOrEmpty();

        controller = new ResourceClaimController(cluster.controllers, GATES).start();

        assertThat(generatedClaimName("p")).isEqualTo(name);
        assertThat(claims()).extracting(c -> c.getMetadata().getName()).containsExactly(name);
    }

    @Test
    void aMissingTemplateIsAWarningEventAndTheClaimFollowsOnceItExists() {
        Fixtures.pod(cluster.admin, ns, "p", "later", null, null);

        await().atMost(WAIT).until(() -> cluster.admin.v1().events().inNamespace(ns).list().getItems().stream()
                .anyMatch(e -> "FailedResourceClaimCreation".equals(e.getReason())
                        && "Warning".equals(e.getType())
                        && e.getMessage().startsWith("PodResourceClaim gpu: resource claim template \"later\"")
                        && ResourceClaimController.COMPONENT.equals(e.getSource().getComponent())));

        Fixtures.template(cluster.admin, ns, "later", null, null);
        assertThat(generatedClaimName("p")).startsWith("p-gpu-");
    }

    @Test
    void aDeletedPodsReservationIsDroppedAndTheClaimDeallocated() {
        Fixtures.claim(cluster.admin, ns, "shared");
        Pod pod = Fixtures.pod(cluster.admin, ns, "p", null, "shared", null);
        Fixtures.allocate(cluster.admin, ns, "shared", pod, "node-1", "device-00", List.of());
        cluster.bind(ns, "p", "node-1");

        cluster.admin.pods().inNamespace(ns).withName("p").withGracePeriod(0).delete();

        await().atMost(WAIT).until(() -> {
            ResourceClaim claim = claim("shared");
            return claim.getStatus().getReservedFor().isEmpty() && claim.getStatus().getAllocation() == null
                    && !claim.getMetadata().getFinalizers().contains(PodClaims.DELETE_PROTECTION_FINALIZER);
        });
        assertThat(claim("shared")).as("a claim the user created stays").isNotNull();
    }

    @Test
    void aReservationOfAPodReplacedUnderTheSameNameIsDropped() {
        Fixtures.claim(cluster.admin, ns, "c");
        Pod old = Fixtures.pod(cluster.admin, ns, "p", null, "c", null);
        Fixtures.allocate(cluster.admin, ns, "c", old, "node-1", "device-00", List.of());
        controller.close();
        cluster.admin.pods().inNamespace(ns).withName("p").withGracePeriod(0).delete();
        await().atMost(WAIT).until(() -> pod("p") == null);
        Pod replacement = Fixtures.pod(cluster.admin, ns, "p", null, "c", null);

        controller = new ResourceClaimController(cluster.controllers, GATES).start();

        await().atMost(WAIT).until(() -> claim("c").getStatus().getAllocation() == null);
        assertThat(claim("c").getStatus().getReservedFor()).isEmpty();
        assertThat(replacement.getMetadata().getUid()).isNotEqualTo(old.getMetadata().getUid());
    }

    @Test
    void aClaimOfADonePodIsDeallocatedAndDeletedButNotWhileItsContainersRestart() {
        Fixtures.template(cluster.admin, ns, "tmpl", null, null);
        Pod pod = Fixtures.pod(cluster.admin, ns, "p", "tmpl", null, null);
        String name = generatedClaimName("p");
        Fixtures.allocate(cluster.admin, ns, name, pod, "node-1", "device-00", List.of());
        cluster.bind(ns, "p", "node-1");
        cluster.setStatus(ns, "p", """
                {"phase":"Running","containerStatuses":[{"name":"c","image":"busybox","imageID":"","ready":false,
                 "restartCount":3,"state":{"waiting":{"reason":"CrashLoopBackOff"}}}]}""");
        // a barrier: one worker handles keys in order, so once the next pod's claim exists, p's update was handled
        Fixtures.pod(cluster.admin, ns, "barrier", "tmpl", null, null);
        generatedClaimName("barrier");
        assertThat(claim(name).getStatus().getReservedFor()).hasSize(1);
        assertThat(claim(name).getStatus().getAllocation()).isNotNull();

        cluster.setPhase(ns, "p", "Failed");

        await().atMost(WAIT).until(() -> claim(name) == null);
        assertThat(pod("p")).as("the pod itself stays").isNotNull();
    }

    @Test
    void theSchedulersExtendedResourceClaimIsDeallocatedAndDeletedWhenItsPodSucceeded() {
        Pod pod = cluster.admin.pods().inNamespace(ns).resource(new PodBuilder().withNewMetadata().withName("p")
                .endMetadata().withNewSpec().addNewContainer().withName("c").withImage("busybox").endContainer()
                .endSpec().build()).create();
        // what the scheduler writes in PreBind: the special claim, owned by the pod, and the pod's status
        cluster.admin.resources(ResourceClaim.class).inNamespace(ns).resource(new ResourceClaimBuilder(
                Fixtures.claim(cluster.admin, ns, "p-extended-resources-abcde")).editMetadata()
                .addToAnnotations("resource.kubernetes.io/extended-resource-claim", "true")
                .addNewOwnerReference().withApiVersion("v1").withKind("Pod").withName("p")
                .withUid(pod.getMetadata().getUid()).withController(true).endOwnerReference().endMetadata().build())
                .update();
        Fixtures.allocate(cluster.admin, ns, "p-extended-resources-abcde", pod, "node-1", "device-00", List.of());
        cluster.setStatus(ns, "p", """
                {"extendedResourceClaimStatus":{"resourceClaimName":"p-extended-resources-abcde",
                 "requestMappings":[{"containerName":"c","resourceName":"example.com/gpu","requestName":"dev"}]}}""");
        cluster.bind(ns, "p", "node-1");
        cluster.setPhase(ns, "p", "Running");
        assertThat(claim("p-extended-resources-abcde").getStatus().getReservedFor()).hasSize(1);

        cluster.setPhase(ns, "p", "Succeeded");

        await().atMost(WAIT).until(() -> claim("p-extended-resources-abcde") == null);
        assertThat(pod("p")).as("the pod itself stays").isNotNull();
    }

    @Test
    void aPodBoundWithoutTheSchedulerGetsItsAllocatedClaimReserved() {
        Fixtures.claim(cluster.admin, ns, "c");
        Fixtures.allocate(cluster.admin, ns, "c", null, "node-1", "device-00", List.of());
        Pod pod = Fixtures.pod(cluster.admin, ns, "p", null, "c", "node-1");

        await().atMost(WAIT).until(() -> claim("c").getStatus().getReservedFor().size() == 1);
        assertThat(claim("c").getStatus().getReservedFor().get(0).getUid()).isEqualTo(pod.getMetadata().getUid());
    }
}
