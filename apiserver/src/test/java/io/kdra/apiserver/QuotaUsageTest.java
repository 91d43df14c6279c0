package io.kdra.apiserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceQuotaBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClassBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequest;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Quota usage of extended resources and devices, as kube-apiserver's pod and ResourceClaim evaluators compute it
 * (DRAExtendedResource on).
 */
class QuotaUsageTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    static ServerFixture fixture;

    @BeforeAll
    static void startServer() {
        fixture = new ServerFixture(ServerFixture.EVERY_DRA_FIELD);
    }

    @AfterAll
    static void stopServer() {
        fixture.close();
    }

    @Test
    void podsCountTheirExtendedResourcesAsTheSchedulerAggregatesThemUntilTheyAreDone() {
        String ns = fixture.namespace();
        quota(ns, "requests.example.com/gpu", "requests.deviceclass.resource.kubernetes.io/gpu-class");
        // kubernetes#134210: init 1, then the sidecar 1 stays, then init 2 on top: 3 at the peak, 1 after; main 1
        Pod pod = fixture.client.pods().inNamespace(ns).resource(new PodBuilder().withNewMetadata().withName("p")
                .endMetadata().withNewSpec()
                .withInitContainers(container("ic1", 1), sidecar(container("sidecar", 1)), container("ic2", 2))
                .withContainers(container("main", 1)).endSpec().build()).create();

        awaitUsed(ns, Map.of("requests.example.com/gpu", "3",
                "requests.deviceclass.resource.kubernetes.io/gpu-class", "3"));

        fixture.client.pods().inNamespace(ns).withName(pod.getMetadata().getName()).subresource("status")
                .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"status\":{\"phase\":\"Succeeded\"}}");
        awaitUsed(ns, Map.of("requests.example.com/gpu", "0",
                "requests.deviceclass.resource.kubernetes.io/gpu-class", "0"));
    }

    @Test
    void claimsCountTheDevicesTheyMayGetPerClassAndAsExtendedResources() {
        String ns = fixture.namespace();
        deviceClass("quota-a", "example.com/a");
        deviceClass("quota-b", null);
        quota(ns, "count/resourceclaims.resource.k8s.io", "quota-a.deviceclass.resource.k8s.io/devices",
                "quota-b.deviceclass.resource.k8s.io/devices", "requests.example.com/a",
                "requests.deviceclass.resource.kubernetes.io/quota-a",
                "requests.deviceclass.resource.kubernetes.io/quota-b");
        claim(ns, "c", null,
                new DeviceRequestBuilder().withName("two").withNewExactly().withDeviceClassName("quota-a")
                        .withCount(2L).endExactly().build(),
                new DeviceRequestBuilder().withName("all").withNewExactly().withDeviceClassName("quota-b")
                        .withAllocationMode("All").endExactly().build(),
                // the worst case per class: 3 of a, 1 of b
                new DeviceRequestBuilder().withName("either").addNewFirstAvailable().withName("one")
                        .withDeviceClassName("quota-a").endFirstAvailable()
                        .addNewFirstAvailable().withName("three").withDeviceClassName("quota-a").withCount(3L)
                        .endFirstAvailable()
                        .addNewFirstAvailable().withName("b").withDeviceClassName("quota-b").endFirstAvailable()
                        .build());

        awaitUsed(ns, Map.of("count/resourceclaims.resource.k8s.io", "1",
                "quota-a.deviceclass.resource.k8s.io/devices", "5",
                "quota-b.deviceclass.resource.k8s.io/devices", "33",
                "requests.example.com/a", "5",
                "requests.deviceclass.resource.kubernetes.io/quota-a", "5",
                "requests.deviceclass.resource.kubernetes.io/quota-b", "33"));
    }

    @Test
    void theClaimMadeForAPodsExtendedResourcesCountsOnlyWhatThePodDoesNot() {
        String ns = fixture.namespace();
        deviceClass("gpu-class", "example.com/gpu");
        quota(ns, "requests.example.com/gpu", "gpu-class.deviceclass.resource.k8s.io/devices",
                "requests.deviceclass.resource.kubernetes.io/gpu-class");
        Pod pod = fixture.client.pods().inNamespace(ns).resource(new PodBuilder().withNewMetadata().withName("p")
                .endMetadata().withNewSpec().withInitContainers(container("init", 1))
                .withContainers(container("main", 1)).endSpec().build()).create();
        // the scheduler's claim: one device per container
        DeviceRequest[] perContainer = {
                new DeviceRequestBuilder().withName("container-0-request-0").withNewExactly()
                        .withDeviceClassName("gpu-class").endExactly().build(),
                new DeviceRequestBuilder().withName("container-1-request-0").withNewExactly()
                        .withDeviceClassName("gpu-class").endExactly().build()};
        claim(ns, "p-extended-resources", pod, perContainer);
        // a look-alike made later for the same pod gets no exemption
        claim(ns, "p-look-alike", pod, perContainer);

        // the pod counts 1; the first claim 2 devices, 1 of them already counted; the look-alike all of its 2
        awaitUsed(ns, Map.of("gpu-class.deviceclass.resource.k8s.io/devices", "4",
                "requests.example.com/gpu", "4",
                "requests.deviceclass.resource.kubernetes.io/gpu-class", "4"));
    }

    private static Container container(String name, int gpus) {
        Quantity quantity = new Quantity(Integer.toString(gpus));
        Map<String, Quantity> requests = Map.of("example.com/gpu", quantity,
                "deviceclass.resource.kubernetes.io/gpu-class", quantity);
        return new ContainerBuilder().withName(name).withImage("busybox").withNewResources()
                .withRequests(requests).withLimits(requests).endResources().build();
    }

    private static Container sidecar(Container container) {
        container.setRestartPolicy("Always");
        return container;
    }

    private static void quota(String ns, String... resources) {
        Map<String, Quantity> hard = new LinkedHashMap<>();
        Arrays.stream(resources).forEach(resource -> hard.put(resource, new Quantity("100")));
        fixture.client.resourceQuotas().inNamespace(ns).resource(new ResourceQuotaBuilder().withNewMetadata()
                .withName("q").endMetadata().withNewSpec().withHard(hard).endSpec().build()).create();
    }

    private static void deviceClass(String name, String extendedResourceName) {
        fixture.client.resource(new DeviceClassBuilder().withNewMetadata().withName(name).endMetadata()
                .withNewSpec().withExtendedResourceName(extendedResourceName).endSpec().build()).create();
    }

    private static void claim(String ns, String name, Pod owner, DeviceRequest... requests) {
        ResourceClaimBuilder claim = new ResourceClaimBuilder().withNewMetadata().withName(name).endMetadata()
                .withNewSpec().withNewDevices().withRequests(requests).endDevices().endSpec();
        if (owner != null) {
            claim.editMetadata().addToAnnotations("resource.kubernetes.io/extended-resource-claim", "true")
                    .addNewOwnerReference().withApiVersion("v1").withKind("Pod")
                    .withName(owner.getMetadata().getName()).withUid(owner.getMetadata().getUid())
                    .withController(true).endOwnerReference().endMetadata();
        }
        ResourceClaim built = claim.build();
        fixture.client.resource(built).inNamespace(ns).create();
    }

    private static void awaitUsed(String ns, Map<String, String> expected) {
        Map<String, Quantity> quantities = new LinkedHashMap<>();
        expected.forEach((name, value) -> quantities.put(name, new Quantity(value)));
        await().atMost(WAIT).untilAsserted(() -> assertThat(fixture.client.resourceQuotas().inNamespace(ns)
                .withName("q").get().getStatus().getUsed()).containsAllEntriesOf(quantities));
    }
}
