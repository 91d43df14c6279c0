package io.kdra.cluster.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.kdra.kube.FeatureGates;
import io.kdra.kube.KubernetesVersion;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class ResourcePoolStatusControllerTest {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final AtomicInteger DRIVERS = new AtomicInteger();

    private static ControllerCluster cluster;
    private static ResourcePoolStatusController controller;

    @BeforeAll
    static void start() {
        // 1.37: partitionable devices and consumable capacity are on, so the API server keeps their fields
        cluster = new ControllerCluster(FeatureGates.parse(new KubernetesVersion(1, 37), "DRAResourcePoolStatus=true"));
        controller = new ResourcePoolStatusController(new SharedInformers(cluster.controllers), Clock.systemUTC())
                .start();
    }

    @AfterAll
    static void stop() {
        controller.close();
        controller.informers.close();
        cluster.close();
    }

    private static String driver() {
        return "d" + DRIVERS.incrementAndGet() + ".example.com";
    }

    private static void slice(String name, String driver, String pool, String node, long count, String... devices) {
        ResourceSliceBuilder slice = new ResourceSliceBuilder().withNewMetadata().withName(name).endMetadata()
                .withNewSpec().withDriver(driver).withNewPool().withName(pool).withGeneration(1L)
                .withResourceSliceCount(count).endPool().endSpec();
        if (node == null) {
            slice.editSpec().withAllNodes(true).endSpec();
        } else {
            slice.editSpec().withNodeName(node).endSpec();
        }
        for (String device : devices) {
            slice.editSpec().addNewDevice().withName(device).endDevice().endSpec();
        }
        cluster.admin.resource(slice.build()).create();
    }

    /** Creates a request and returns its status once written. */
    @SuppressWarnings("unchecked")
    private static Map<String, Object> report(String specJson) {
        GenericKubernetesResource request = Serialization.unmarshal("{\"apiVersion\":\"resource.k8s.io/v1alpha3\","
                + "\"kind\":\"ResourcePoolStatusRequest\",\"metadata\":{\"generateName\":\"r-\"},\"spec\":"
                + specJson + "}", GenericKubernetesResource.class);
        String name = cluster.admin.genericKubernetesResources(ResourcePoolStatusController.REQUESTS)
                .resource(request).create().getMetadata().getName();
        GenericKubernetesResource done = await().atMost(WAIT).until(() -> cluster.admin
                        .genericKubernetesResources(ResourcePoolStatusController.REQUESTS).withName(name).get(),
                r -> r.getAdditionalProperties().get("status") != null);
        return (Map<String, Object>) done.getAdditionalProperties().get("status");
    }

    /**
     * Asks for reports until one satisfies the assertions: a request is computed once, from the controller's informers,
     * whose slice and claim events may come after the request's own.
     */
    private static void reportOnceSeen(String specJson, Consumer<Map<String, Object>> assertions) {
        await().atMost(WAIT).untilAsserted(() -> assertions.accept(report(specJson)));
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> pools(Map<String, Object> status) {
        return (List<Map<String, Object>>) status.getOrDefault("pools", List.of());
    }

    @Test
    void reportsEveryPoolOfTheDriverWithItsCounts() {
        String driver = driver();
        slice(driver + "-a", driver, "pool-a", "node-1", 1, "dev-0", "dev-1");
        slice(driver + "-b", driver, "pool-b", "node-2", 1, "dev-0");
        String ns = cluster.namespace();
        cluster.admin.resource(new ResourceClaimBuilder().withNewMetadata().withName("c").withNamespace(ns)
                .endMetadata().withNewSpec().withNewDevices().addNewRequest().withName("r").withNewExactly()
                .withDeviceClassName("class").endExactly().endRequest().endDevices().endSpec().build()).create();
        cluster.admin.resource(new ResourceClaimBuilder().withNewMetadata().withName("c").withNamespace(ns)
                .endMetadata().withNewStatus().withNewAllocation().withNewDevices().addNewResult().withRequest("r")
                .withDriver(driver).withPool("pool-a").withDevice("dev-1").endResult().endDevices().endAllocation()
                .endStatus().build()).updateStatus();

        reportOnceSeen("{\"driver\":\"" + driver + "\"}", status -> {
            assertThat(status).containsEntry("poolCount", 2);
            assertThat(pools(status)).hasSize(2);
            assertThat(pools(status).get(0)).containsAllEntriesOf(Map.of("driver", driver, "poolName", "pool-a",
                    "generation", 1, "nodeName", "node-1", "resourceSliceCount", 1, "totalDevices", 2,
                    "allocatedDevices", 1, "availableDevices", 1, "unavailableDevices", 0));
            assertThat((List<Map<String, Object>>) status.get("conditions")).singleElement()
                    .satisfies(c -> assertThat(c).containsEntry("type", "Complete").containsEntry("status", "True")
                            .containsEntry("reason", "CalculationComplete"));
        });

        Map<String, Object> filtered = report("{\"driver\":\"" + driver + "\",\"poolName\":\"pool-b\"}");
        assertThat(filtered).containsEntry("poolCount", 1);
        assertThat(pools(filtered)).singleElement().satisfies(p -> assertThat(p).containsEntry("poolName", "pool-b"));

        Map<String, Object> limited = report("{\"driver\":\"" + driver + "\",\"limit\":1}");
        assertThat(limited).containsEntry("poolCount", 2);
        assertThat(pools(limited)).hasSize(1);

        Map<String, Object> unknown = report("{\"driver\":\"unknown.example.com\"}");
        assertThat(unknown).containsEntry("poolCount", 0).doesNotContainKey("pools");
    }

    @Test
    void aPoolOnSeveralNodesHasNoNodeNameAndAnIncompletePoolNoCounts() {
        String driver = driver();
        slice(driver + "-0", driver, "mixed", "node-1", 2, "device-0");
        slice(driver + "-1", driver, "mixed", "node-2", 2, "device-1");
        slice(driver + "-2", driver, "partial", null, 2, "device-0");

        reportOnceSeen("{\"driver\":\"" + driver + "\"}", status -> {
            assertThat(pools(status)).hasSize(2);
            assertThat(pools(status).get(0)).containsEntry("poolName", "mixed")
                    .containsEntry("resourceSliceCount", 2).containsEntry("totalDevices", 2)
                    .doesNotContainKey("nodeName");
            assertThat(pools(status).get(1)).containsEntry("poolName", "partial").doesNotContainKey("totalDevices")
                    .containsEntry("validationError", "PoolIncomplete: pool " + driver + "/partial is incomplete: "
                            + "observed 1/2 slices at generation 1");
        });
    }

    @Test
    void summarizesPartitionsAndShareableDevices() {
        String driver = driver();
        // counters and the devices consuming them are published in separate slices of one pool
        ResourceSlice counters = new ResourceSliceBuilder().withNewMetadata().withName(driver + "-c").endMetadata()
                .withNewSpec().withDriver(driver).withNodeName("node-1").withPartitionTypeAttribute(driver + "/profile")
                .withNewPool().withName("partitioned").withGeneration(1L).withResourceSliceCount(2L).endPool()
                .addNewSharedCounter().withName("memory").addToCounters("size",
                        new io.fabric8.kubernetes.api.model.resource.v1.Counter(new Quantity("8Gi"))).endSharedCounter()
                .endSpec().build();
        ResourceSlice partitions = new ResourceSliceBuilder().withNewMetadata().withName(driver + "-p").endMetadata()
                .withNewSpec().withDriver(driver).withNodeName("node-1").withPartitionTypeAttribute(driver + "/profile")
                .withNewPool().withName("partitioned").withGeneration(1L).withResourceSliceCount(2L).endPool()
                .withDevices(partition("full", "Full", "8Gi"), partition("half-0", "Half", "4Gi"),
                        partition("half-1", "Half", "4Gi"))
                .endSpec().build();
        cluster.admin.resource(counters).create();
        cluster.admin.resource(partitions).create();
        cluster.admin.resource(new ResourceSliceBuilder().withNewMetadata().withName(driver + "-s").endMetadata()
                .withNewSpec().withDriver(driver).withNodeName("node-1").withNewPool().withName("shareable")
                .withGeneration(1L).withResourceSliceCount(1L).endPool()
                .withDevices(shareable("s-0"), shareable("s-1")).endSpec().build()).create();

        reportOnceSeen("{\"driver\":\"" + driver + "\"}", status -> {
            assertThat(pools(status)).hasSize(2);
            assertThat(pools(status).get(0)).doesNotContainKey("validationError")
                    .containsEntry("partitionSummary", List.of(
                            Map.of("attribute", driver + "/profile", "type", "Full", "total", 1, "allocatable", 1),
                            Map.of("attribute", driver + "/profile", "type", "Half", "total", 2, "allocatable", 2)));
            assertThat(pools(status).get(1)).containsEntry("shareableSummary", Map.of("fullyAvailableDevices", 2,
                    "partiallyAvailableDevices", 0, "capacity", List.of(Map.of("name", "memory", "total", "16Gi",
                            "consumed", "0", "available", "16Gi"))));
        });
    }

    private static io.fabric8.kubernetes.api.model.resource.v1.Device partition(String name, String type,
            String size) {
        return new DeviceBuilder().withName(name).addToAttributes("profile",
                        new io.fabric8.kubernetes.api.model.resource.v1.DeviceAttributeBuilder().withString(type)
                                .build())
                .addNewConsumesCounter().withCounterSet("memory").addToCounters("size",
                        new io.fabric8.kubernetes.api.model.resource.v1.Counter(new Quantity(size))).endConsumesCounter()
                .build();
    }

    private static io.fabric8.kubernetes.api.model.resource.v1.Device shareable(String name) {
        return new DeviceBuilder().withName(name).withAllowMultipleAllocations(true).addToCapacity("memory",
                new io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacityBuilder()
                        .withValue(new Quantity("8Gi")).build()).build();
    }
}
