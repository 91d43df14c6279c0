package io.kdra.cluster.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.ContainerExtendedResourceRequest;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodExtendedResourceClaimStatus;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClassBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequest;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.kdra.apiserver.ApiServerConfig;
import io.kdra.cluster.Timing;
import io.kdra.kube.FeatureGates;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Extended resources backed by DRA: the special claim, its requests and mappings, fit, and overcommitment. */
class SchedulerExtendedResourceTest {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final String GPU = "example.com/gpu";

    private SchedulerFixture cluster;

    @BeforeEach
    void start() {
        // the gate also keeps spec.extendedResourceName in the API server
        cluster = new SchedulerFixture(ApiServerConfig.defaults().featureGates()
                .with(FeatureGates.DRA_EXTENDED_RESOURCE, true), Timing.FAST);
        cluster.node("node-a");
        cluster.slice("node-a", 2);
    }

    @AfterEach
    void stop() {
        cluster.close();
    }

    @Test
    void anExplicitExtendedResourceGetsASpecialClaimAllocatedAndRecordedInThePodStatus() {
        explicitClass(GPU);
        Pod pod = create(pod("p", container("c", Map.of(GPU, "2"))));

        await().atMost(WAIT).until(() -> "node-a".equals(cluster.nodeOf("p")));
        PodExtendedResourceClaimStatus status = cluster.pod("p").getStatus().getExtendedResourceClaimStatus();
        assertThat(status.getResourceClaimName()).startsWith("p-extended-resources-");
        assertThat(status.getRequestMappings()).containsExactly(
                new ContainerExtendedResourceRequest("c", "container-0-request-0", GPU));
        ResourceClaim claim = cluster.claimNamed(status.getResourceClaimName());
        assertThat(claim.getMetadata().getAnnotations())
                .containsEntry(ExtendedResources.ANNOTATION, "true");
        assertThat(claim.getMetadata().getOwnerReferences()).singleElement().satisfies(owner -> {
            assertThat(owner.getUid()).isEqualTo(pod.getMetadata().getUid());
            assertThat(owner.getController()).isTrue();
        });
        assertThat(claim.getMetadata().getFinalizers()).contains(DynamicResources.FINALIZER);
        assertThat(claim.getSpec().getDevices().getRequests()).singleElement().satisfies(request -> {
            assertThat(request.getExactly().getDeviceClassName()).isEqualTo("gpus");
            assertThat(request.getExactly().getCount()).isEqualTo(2L);
        });
        assertThat(claim.getStatus().getAllocation().getDevices().getResults()).hasSize(2);
        assertThat(claim.getStatus().getReservedFor()).singleElement()
                .satisfies(consumer -> assertThat(consumer.getUid()).isEqualTo(pod.getMetadata().getUid()));
    }

    @Test
    void theImplicitNameOfAClassWorksToo() {
        cluster.deviceClass("plain");
        create(pod("p", container("c", Map.of(ExtendedResources.IMPLICIT_PREFIX + "plain", "1"))));

        await().atMost(WAIT).until(() -> "node-a".equals(cluster.nodeOf("p")));
        assertThat(cluster.pod("p").getStatus().getExtendedResourceClaimStatus()).isNotNull();
    }

    @Test
    void aResourceNoClassOrNodeProvidesKeepsThePodPendingUntilTheClassIsCreated() {
        create(pod("p", container("c", Map.of(GPU, "1"))));
        await().atMost(WAIT).untilAsserted(() -> assertThat(cluster.schedulingMessage("p")).startsWith(
                "0/1 nodes are available: 1 Insufficient example.com/gpu."));

        explicitClass(GPU);
        await().atMost(WAIT).until(() -> "node-a".equals(cluster.nodeOf("p")));
    }

    @Test
    void aZeroRequestNeedsNoClaim() {
        create(pod("p", container("c", Map.of(GPU, "0"))));

        await().atMost(WAIT).until(() -> "node-a".equals(cluster.nodeOf("p")));
        assertThat(cluster.pod("p").getStatus().getExtendedResourceClaimStatus()).isNull();
    }

    @Test
    void devicesAreNotOvercommittedUntilTheFirstPodsClaimIsGone() {
        explicitClass(GPU);
        create(pod("first", container("c", Map.of(GPU, "2"))));
        await().atMost(WAIT).until(() -> "node-a".equals(cluster.nodeOf("first")));
        create(pod("second", container("c", Map.of(GPU, "2"))));
        await().atMost(WAIT).untilAsserted(() -> assertThat(cluster.schedulingMessage("second")).startsWith(
                "0/1 nodes are available: 1 cannot allocate all claims."));

        String firstClaim = cluster.pod("first").getStatus().getExtendedResourceClaimStatus().getResourceClaimName();
        cluster.deallocate(firstClaim);
        await().atMost(WAIT).until(() -> "node-a".equals(cluster.nodeOf("second")));
    }

    @Test
    void initContainersReuseTheDevicesOfLaterSidecarsAndContainers() {
        explicitClass(GPU);
        Container init = container("init", Map.of(GPU, "2"));
        Container sidecar = new ContainerBuilder(container("sidecar", Map.of(GPU, "1"))).withRestartPolicy("Always")
                .build();
        Container laterInit = container("init-1", Map.of(GPU, "1"));
        Pod pod = new PodBuilder(pod("p", container("main", Map.of(GPU, "1", "cpu", "1")))).editSpec()
                .withInitContainers(init, sidecar, laterInit).endSpec().build();
        create(pod);

        await().atMost(WAIT).until(() -> "node-a".equals(cluster.nodeOf("p")));
        PodExtendedResourceClaimStatus status = cluster.pod("p").getStatus().getExtendedResourceClaimStatus();
        // the main container's resources sort as cpu, example.com/gpu: its request index is 1
        assertThat(status.getRequestMappings()).containsExactly(
                new ContainerExtendedResourceRequest("init", "container-1-request-0", GPU),
                new ContainerExtendedResourceRequest("init", "container-3-request-1", GPU),
                new ContainerExtendedResourceRequest("sidecar", "container-1-request-0", GPU),
                new ContainerExtendedResourceRequest("init-1", "container-3-request-1", GPU),
                new ContainerExtendedResourceRequest("main", "container-3-request-1", GPU));
        List<DeviceRequest> requests = cluster.client.resources(ResourceClaim.class).list().getItems().stream()
                .filter(claim -> claim.getMetadata().getName().equals(status.getResourceClaimName())).findFirst()
                .orElseThrow().getSpec().getDevices().getRequests();
        assertThat(requests).extracting(DeviceRequest::getName)
                .containsExactly("container-1-request-0", "container-3-request-1");
    }

    @Test
    void podRequestsCountSidecarsWithTheContainersAndTheLargestInitContainer() {
        Pod pod = new PodBuilder(pod("p", container("main", Map.of(GPU, "1")))).editSpec().withInitContainers(
                new ContainerBuilder(container("sidecar", Map.of(GPU, "1"))).withRestartPolicy("Always").build(),
                container("init", Map.of(GPU, "3"))).endSpec().build();

        assertThat(ExtendedResources.podRequests(pod)).containsExactly(Map.entry(GPU, 4L));
    }

    private void explicitClass(String resourceName) {
        cluster.client.resources(DeviceClass.class).resource(new DeviceClassBuilder().withNewMetadata()
                .withName("gpus").endMetadata().withNewSpec().addNewSelector().withNewCel()
                .withExpression("device.driver == \"" + SchedulerFixture.DRIVER + "\"").endCel().endSelector()
                .withExtendedResourceName(resourceName).endSpec().build()).create();
    }

    private Pod create(Pod pod) {
        return cluster.client.pods().resource(pod).create();
    }

    private static Pod pod(String name, Container container) {
        return new PodBuilder().withNewMetadata().withName(name).endMetadata().withNewSpec()
                .withContainers(container).endSpec().build();
    }

    private static Container container(String name, Map<String, String> requests) {
        Map<String, Quantity> quantities = new java.util.TreeMap<>();
        requests.forEach((resource, amount) -> quantities.put(resource, new Quantity(amount)));
        return new ContainerBuilder().withName(name).withImage("busybox").withNewResources().withRequests(quantities)
                .withLimits(new java.util.TreeMap<>(quantities)).endResources().build();
    }
}
