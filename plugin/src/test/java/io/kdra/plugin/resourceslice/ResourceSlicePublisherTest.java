package io.kdra.plugin.resourceslice;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeSelectorBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourcePool;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.kdra.plugin.testing.ApiServerFixture;
import io.kdra.plugin.testing.MockApiServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The publisher against the fabric8 mock API server in CRUD mode. The mock cannot select by {@code spec.driver} or
 * {@code spec.nodeName}; {@link MockApiServer} adds that for lists, so the publisher runs with the same selectors as
 * against a real API server.
 */
class ResourceSlicePublisherTest {

    private static final Duration WAIT = Duration.ofSeconds(30);
    @RegisterExtension
    static final ApiServerFixture api = new ApiServerFixture();

    private final KubernetesClient client = api.client();
    private final List<String> errors = new CopyOnWriteArrayList<>();
    private final List<Exception> failures = new CopyOnWriteArrayList<>();
    private String driver;
    private String nodeName;
    private Node node;
    private ResourceSlicePublisher publisher;

    @BeforeEach
    void setUp() {
        driver = api.driverName();
        nodeName = api.nodeName();
        node = api.createNode();
    }

    @AfterEach
    void tearDown() {
        api.server().rejectSliceWrites(null);
        api.server().rewriteSliceWrites(body -> body);
        if (publisher != null) {
            publisher.stop();
        }
    }

    @Test
    void publishesNodeLocalSlicesOwnedByTheNode() {
        publisher = nodePublisher().start(DriverResources.of(nodeName, Pool.ofDevices(Devices.plain(4))));

        ResourceSlice slice = awaitSlices(1).get(0);

        assertThat(slice.getMetadata().getName()).startsWith("00000-" + driver + "-" + nodeName + "-");
        assertThat(slice.getSpec().getDriver()).isEqualTo(driver);
        assertThat(slice.getSpec().getNodeName()).isEqualTo(nodeName);
        assertThat(slice.getSpec().getPool()).isEqualTo(new ResourcePool(1L, nodeName, 1L));
        assertThat(slice.getSpec().getDevices()).isEqualTo(Devices.plain(4));
        assertThat(slice.getMetadata().getOwnerReferences()).singleElement().satisfies(owner -> {
            assertThat(owner.getApiVersion()).isEqualTo("v1");
            assertThat(owner.getKind()).isEqualTo("Node");
            assertThat(owner.getName()).isEqualTo(nodeName);
            assertThat(owner.getUid()).isEqualTo(node.getMetadata().getUid());
            assertThat(owner.getController()).isTrue();
        });
        assertThat(errors).isEmpty();
    }

    @Test
    void aChangeThatNeedsSeveralWritesBumpsTheGeneration() {
        publisher = nodePublisher().start(DriverResources.of(nodeName, Pool.ofDevices(Devices.plain(100))));
        awaitSlices(1);

        publisher.update(DriverResources.of(nodeName, Pool.ofDevices(Devices.plain(200))));

        await().atMost(WAIT).untilAsserted(() -> assertThat(slices())
                .extracting(slice -> slice.getSpec().getPool())
                .containsExactly(new ResourcePool(2L, nodeName, 2L), new ResourcePool(2L, nodeName, 2L)));
        assertThat(devicesInOrder()).isEqualTo(Devices.plain(200));
    }

    @Test
    void aChangeOfOneSliceUpdatesItInPlaceAtTheSameGeneration() {
        publisher = nodePublisher().start(DriverResources.of(nodeName, Pool.ofDevices(Devices.plain(2))));
        String name = awaitSlices(1).get(0).getMetadata().getName();

        publisher.update(DriverResources.of(nodeName, Pool.ofDevices(Devices.plain(3))));

        await().atMost(WAIT).untilAsserted(() -> assertThat(slices()).singleElement().satisfies(slice -> {
            assertThat(slice.getSpec().getDevices()).isEqualTo(Devices.plain(3));
            assertThat(slice.getSpec().getPool()).isEqualTo(new ResourcePool(1L, nodeName, 1L));
            assertThat(slice.getMetadata().getName()).isEqualTo(name);
        }));
        assertThat(publisher.stats()).isEqualTo(new ResourceSlicePublisher.Stats(1, 1, 0));
    }

    @Test
    void aGenerationAskedForByTheDriverIsUsed() {
        publisher = nodePublisher().start(DriverResources.of(nodeName,
                new Pool(List.of(Slice.ofDevices(Devices.plain(1))), null, false, false, 7)));

        assertThat(awaitSlices(1).get(0).getSpec().getPool().getGeneration()).isEqualTo(7);
    }

    @Test
    void everySliceOfAPoolDeclaresItsPartitionTypeAttribute() {
        publisher = nodePublisher().start(DriverResources.of(nodeName,
                Pool.ofDevices(Devices.plain(1)).withPartitionTypeAttribute(driver + "/profile")));

        assertThat(awaitSlices(1).get(0).getSpec().getPartitionTypeAttribute()).isEqualTo(driver + "/profile");
    }

    @Test
    void sliceDeletedBySomeoneElseIsRecreated() {
        publisher = nodePublisher().start(DriverResources.of(nodeName, Pool.ofDevices(Devices.plain(4))));
        ResourceSlice original = awaitSlices(1).get(0);

        client.resource(original).delete();

        await().atMost(WAIT).untilAsserted(() -> assertThat(slices()).singleElement().satisfies(slice -> {
            assertThat(slice.getMetadata().getUid()).isNotEqualTo(original.getMetadata().getUid());
            assertThat(slice.getSpec().getDevices()).isEqualTo(Devices.plain(4));
        }));
    }

    @Test
    void moreThan128DevicesArePublishedAsSeveralSlicesOfOneGeneration() {
        publisher = nodePublisher().start(DriverResources.of(nodeName, Pool.ofDevices(Devices.plain(300))));

        List<ResourceSlice> slices = awaitSlices(3);

        assertThat(slices).extracting(slice -> slice.getMetadata().getName().substring(0, 6))
                .containsExactly("00000-", "00001-", "00002-");
        assertThat(slices).extracting(slice -> slice.getSpec().getPool())
                .containsOnly(new ResourcePool(1L, nodeName, 3L));
        assertThat(slices).extracting(slice -> slice.getSpec().getDevices().size()).containsExactly(128, 128, 44);
        assertThat(devicesInOrder()).isEqualTo(Devices.plain(300));
    }

    @Test
    void sharedCountersArePublishedInASliceOfTheirOwn() {
        Slice partitioned = new Slice(
                List.of(Devices.consuming("gpu-0-half-0", "gpu-0", "memory"),
                        Devices.consuming("gpu-0-half-1", "gpu-0", "memory")),
                List.of(Devices.counterSet("gpu-0", "memory")));
        publisher = nodePublisher().start(DriverResources.of(nodeName, Pool.of(List.of(partitioned))));

        List<ResourceSlice> slices = awaitSlices(2);

        assertThat(slices.get(0).getSpec().getSharedCounters()).isEqualTo(partitioned.sharedCounters());
        assertThat(slices.get(0).getSpec().getDevices()).isEmpty();
        assertThat(slices.get(1).getSpec().getSharedCounters()).isEmpty();
        assertThat(slices.get(1).getSpec().getDevices()).isEqualTo(partitioned.devices());
    }

    @Test
    void slicesOfRemovedPoolsAndStaleSlicesAreDeleted() {
        client.resource(new ResourceSliceBuilder()
                .withNewMetadata().withName(nodeName + "-" + driver + "-left-over").endMetadata()
                .withNewSpec().withDriver(driver).withNodeName(nodeName)
                .withNewPool().withName(nodeName).withGeneration(1L).withResourceSliceCount(1L).endPool()
                .withDevices(Devices.plain(1)).endSpec()
                .build()).create();
        publisher = nodePublisher().start(new DriverResources(Map.of(
                nodeName, Pool.ofDevices(Devices.plain(2)),
                "second", Pool.ofDevices(Devices.plain(1)))));

        await().atMost(WAIT).untilAsserted(() -> assertThat(slices())
                .extracting(slice -> slice.getSpec().getPool().getName(), slice -> slice.getSpec().getDevices().size())
                .containsExactly(org.assertj.core.groups.Tuple.tuple(nodeName, 2),
                        org.assertj.core.groups.Tuple.tuple("second", 1)));

        publisher.update(DriverResources.of(nodeName, Pool.ofDevices(Devices.plain(2))));

        await().atMost(WAIT).untilAsserted(() -> assertThat(slices())
                .extracting(slice -> slice.getSpec().getPool().getName()).containsExactly(nodeName));
    }

    @Test
    void slicesOfOtherDriversAndOtherNodesAreLeftAlone() {
        ResourceSlice otherDriver = client.resource(foreignSlice("other-driver", "x" + driver, nodeName)).create();
        ResourceSlice otherNode = client.resource(foreignSlice("other-node", driver, nodeName + "-b")).create();
        publisher = nodePublisher().start(DriverResources.of(nodeName, Pool.ofDevices(Devices.plain(1))));

        awaitSlices(2);
        publisher.update(DriverResources.of(nodeName, Pool.ofDevices(Devices.plain(2))));
        await().atMost(WAIT).untilAsserted(() -> assertThat(slices())
                .filteredOn(slice -> nodeName.equals(slice.getSpec().getNodeName()))
                .singleElement().satisfies(slice -> assertThat(slice.getSpec().getDevices()).hasSize(2)));
        publisher.stop();

        assertThat(client.resource(otherDriver).get()).isNotNull();
        assertThat(client.resource(otherNode).get()).isNotNull();
    }

    @Test
    void aPoolTheDriverNeverPublishedIsLeftAloneUntilItHasBeenQuietForTheSyncDelay() {
        publisher = nodePublisher().syncDelay(Duration.ofMinutes(10)).start(new DriverResources(Map.of(
                nodeName, Pool.ofDevices(Devices.plain(1)),
                "second", Pool.ofDevices(Devices.plain(1)))));
        awaitSlices(2);
        ResourceSlice unpublished = client.resource(unpublishedPoolSlice()).create();

        // an immediate sync: the pool the driver stops publishing goes at once, the other pool stays
        publisher.update(DriverResources.of(nodeName, Pool.ofDevices(Devices.plain(2))));

        await().atMost(WAIT).untilAsserted(() -> assertThat(slices())
                .extracting(slice -> slice.getSpec().getPool().getName(), slice -> slice.getSpec().getDevices().size())
                .containsExactly(org.assertj.core.groups.Tuple.tuple("mixed-node-pool", 1),
                        org.assertj.core.groups.Tuple.tuple(nodeName, 2)));
        assertThat(client.resource(unpublished).get()).isNotNull();
    }

    @Test
    void aPoolTheDriverNeverPublishedIsDeletedOnceQuietForTheSyncDelay() {
        publisher = nodePublisher().start(DriverResources.of(nodeName, Pool.ofDevices(Devices.plain(1))));
        awaitSlices(1);

        client.resource(unpublishedPoolSlice()).create();

        await().atMost(WAIT).untilAsserted(() -> assertThat(slices())
                .extracting(slice -> slice.getSpec().getPool().getName()).containsExactly(nodeName));
    }

    /** A slice of this driver on this node in a pool the publisher does not publish, as the pool status spec makes. */
    private ResourceSlice unpublishedPoolSlice() {
        return new ResourceSliceBuilder()
                .withNewMetadata().withName(driver + "-mixed-node-0").endMetadata()
                .withNewSpec().withDriver(driver).withNodeName(nodeName)
                .withNewPool().withName("mixed-node-pool").withGeneration(1L).withResourceSliceCount(2L).endPool()
                .withDevices(Devices.plain(1)).endSpec()
                .build();
    }

    private static ResourceSlice foreignSlice(String name, String driverName, String node) {
        return new ResourceSliceBuilder()
                .withNewMetadata().withName(name + "-" + UUID.randomUUID()).endMetadata()
                .withNewSpec().withDriver(driverName).withNodeName(node)
                .withNewPool().withName(node).withGeneration(1L).withResourceSliceCount(1L).endPool()
                .withDevices(Devices.plain(1)).endSpec()
                .build();
    }

    @Test
    void clusterWidePoolsAreSelectedByTheirNodeSelection() {
        publisher = ResourceSlicePublisher.builder(client, driver).errorHandler(this::record)
                .syncDelay(Duration.ofMillis(50))
                .start(new DriverResources(Map.of(
                        "all", new Pool(List.of(Slice.ofDevices(Devices.plain(1))), null, true, false, 0),
                        "selected", new Pool(List.of(Slice.ofDevices(Devices.plain(1))),
                                new NodeSelectorBuilder().addNewNodeSelectorTerm().addNewMatchExpression()
                                        .withKey("kubernetes.io/hostname").withOperator("In").withValues(nodeName)
                                        .endMatchExpression().endNodeSelectorTerm().build(), false, false, 0))));

        await().atMost(WAIT).untilAsserted(() -> assertThat(slices()).hasSize(2).allSatisfy(slice -> {
            assertThat(slice.getSpec().getNodeName()).isNull();
            assertThat(slice.getMetadata().getOwnerReferences()).isEmpty();
            assertThat(slice.getMetadata().getName()).startsWith("00000-" + driver + "-");
        }));
        assertThat(slices()).extracting(slice -> slice.getSpec().getAllNodes()).containsExactly(true, null);
        assertThatThrownBy(() -> publisher.update(DriverResources.of("none", Pool.ofDevices(List.of()))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("pool \"none\": a pool not local to a node needs one of nodeSelector, allNodes or "
                        + "perDeviceNodeSelection");
    }

    @Test
    void aPoolReconciledByNameIsOwnedByTheNodeWithoutNodeNameAndComesBackWhenDeleted() {
        ResourceSlice otherPool = client.resource(foreignSlice("other-pool", driver, nodeName)).create();
        publisher = nodePublisher().reconcilePoolWithName("all-nodes-pool").start(DriverResources.of("all-nodes-pool",
                new Pool(List.of(Slice.ofDevices(Devices.plain(1))), null, true, false, 0)));

        ResourceSlice published = await().atMost(WAIT).until(() -> slices().stream()
                .filter(slice -> slice.getSpec().getPool().getName().equals("all-nodes-pool")).toList(),
                list -> list.size() == 1).get(0);
        assertThat(published.getSpec().getNodeName()).isNull();
        assertThat(published.getSpec().getAllNodes()).isTrue();
        assertThat(published.getSpec().getPool().getResourceSliceCount()).isEqualTo(1L);
        assertThat(published.getMetadata().getOwnerReferences()).extracting(owner -> owner.getKind())
                .containsExactly("Node");

        client.resource(published).delete();
        await().atMost(WAIT).untilAsserted(() -> assertThat(slices())
                .filteredOn(slice -> slice.getSpec().getPool().getName().equals("all-nodes-pool"))
                .singleElement().satisfies(slice -> assertThat(slice.getMetadata().getUid())
                        .isNotEqualTo(published.getMetadata().getUid())));
        // the node's other slices are not this publisher's
        assertThat(client.resource(otherPool).get()).isNotNull();
        assertThatThrownBy(() -> publisher.update(DriverResources.of(nodeName, Pool.ofDevices(List.of()))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("pool \"" + nodeName + "\": this publisher reconciles only pool \"all-nodes-pool\"");
    }

    @Test
    void skippedNodeOperationsOfAPoolArePublishedAndUpdated() {
        Pool pool = Pool.ofDevices(Devices.plain(1));
        publisher = nodePublisher().start(DriverResources.of(nodeName, pool.withSkipNodeOperations(List.of("*"))));
        assertThat(awaitSlices(1).get(0).getSpec().getSkipNodeOperations()).containsExactly("*");

        publisher.update(DriverResources.of(nodeName, pool.withSkipNodeOperations(List.of("NodeUnprepareResources"))));

        await().atMost(WAIT).untilAsserted(() -> assertThat(slices()).singleElement().satisfies(slice ->
                assertThat(slice.getSpec().getSkipNodeOperations()).containsExactly("NodeUnprepareResources")));
    }

    @Test
    void devicesMayNameTheirOwnNodes() {
        List<Device> devices = List.of(
                new DeviceBuilder(Devices.device("device-00"))
                        .withNodeName(nodeName).build(),
                new DeviceBuilder(Devices.device("device-01"))
                        .withAllNodes(true).build());
        publisher = ResourceSlicePublisher.builder(client, driver).errorHandler(this::record)
                .syncDelay(Duration.ofMillis(50))
                .start(DriverResources.of("per-device",
                        new Pool(List.of(Slice.ofDevices(devices)), null, false, true, 0)));

        ResourceSlice slice = awaitSlices(1).get(0);

        assertThat(slice.getSpec().getPerDeviceNodeSelection()).isTrue();
        assertThat(slice.getSpec().getNodeName()).isNull();
        assertThat(slice.getSpec().getAllNodes()).isNull();
        assertThat(slice.getSpec().getDevices()).isEqualTo(devices);
        assertThat(errors).isEmpty();
    }

    @Test
    void nodeLocalPoolsMustNotSelectNodes() {
        publisher = nodePublisher().start(DriverResources.of(nodeName, Pool.ofDevices(List.of())));

        assertThatThrownBy(() -> publisher.update(DriverResources.of(nodeName,
                new Pool(List.of(), null, true, false, 0))))
                .hasMessage("pool \"" + nodeName + "\": pools local to node " + nodeName
                        + " must not set nodeSelector, allNodes or perDeviceNodeSelection");
    }

    @Test
    void rejectedWritesAreReportedAndRetried() {
        api.server().rejectSliceWrites("spec.devices[0].name: Invalid value");
        publisher = nodePublisher().start(DriverResources.of(nodeName, Pool.ofDevices(Devices.plain(1))));

        await().atMost(WAIT).until(() -> !failures.isEmpty());
        assertThat(errors.get(0)).isEqualTo("create ResourceSlice for pool \"" + nodeName + "\"");
        assertThat(failures.get(0)).isInstanceOf(KubernetesClientException.class)
                .satisfies(e -> assertThat(((KubernetesClientException) e).getCode()).isEqualTo(422))
                .hasMessageContaining("spec.devices[0].name: Invalid value");

        api.server().rejectSliceWrites(null);

        awaitSlices(1);
    }

    @Test
    void aMissingNodeIsReported() {
        publisher = ResourceSlicePublisher.builder(client, driver).nodeOwner("no-such-node", null)
                .errorHandler(this::record).start(DriverResources.of("pool", Pool.ofDevices(Devices.plain(1))));

        await().atMost(WAIT).until(() -> !failures.isEmpty());
        assertThat(errors.get(0)).isEqualTo("retrieve node \"no-such-node\"");
        assertThat(failures.get(0)).hasMessage("nodes \"no-such-node\" not found");
    }

    @Test
    void droppedFieldsAreReportedOnceAndTheStoredFormIsKept() {
        api.server().rewriteSliceWrites(ResourceSlicePublisherTest::withoutTaints);
        List<Device> devices = List.of(Devices.tainted("device-00"));
        publisher = nodePublisher().start(DriverResources.of(nodeName, Pool.ofDevices(devices)));

        awaitSlices(1);
        await().atMost(WAIT).until(() -> !failures.isEmpty());
        assertThat(failures.get(0)).isInstanceOf(DroppedFieldsException.class).hasMessage("pool \"" + nodeName
                + "\", slice #0: some fields were dropped by the apiserver, probably because these features are "
                + "disabled: DRADeviceTaints");
        assertThat(((DroppedFieldsException) failures.get(0)).disabledFeatures()).containsExactly("DRADeviceTaints");

        // Another pool forces a sync; the first pool must not be rewritten again and again.
        publisher.update(new DriverResources(Map.of(nodeName, Pool.ofDevices(devices),
                "zz-second", Pool.ofDevices(Devices.plain(1)))));
        awaitSlices(2);

        assertThat(publisher.stats().updates()).isZero();
        assertThat(failures).hasSize(1);
    }

    @Test
    void deleteOnStopRemovesThePublishedSlices() {
        publisher = nodePublisher().deleteOnStop(true)
                .start(DriverResources.of(nodeName, Pool.ofDevices(Devices.plain(200))));
        awaitSlices(2);

        publisher.stop();

        assertThat(slices()).isEmpty();
        assertThatThrownBy(() -> publisher.update(DriverResources.of(nodeName, Pool.ofDevices(List.of()))))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("ResourceSlice publisher for driver " + driver + " is stopped");
    }

    private ResourceSlicePublisher.Builder nodePublisher() {
        return ResourceSlicePublisher.builder(client, driver)
                .nodeOwner(nodeName, null)
                .syncDelay(Duration.ofMillis(50))
                .errorHandler(this::record);
    }

    private void record(Exception error, String context) {
        errors.add(context);
        failures.add(error);
    }

    /** This test's slices, sorted by pool and name. */
    private List<ResourceSlice> slices() {
        return client.dynamicResourceAllocation().v1().resourcesSlices().list().getItems().stream()
                .filter(slice -> driver.equals(slice.getSpec().getDriver()))
                .sorted(Comparator.comparing((ResourceSlice slice) -> slice.getSpec().getPool().getName())
                        .thenComparing(slice -> slice.getMetadata().getName()))
                .toList();
    }

    private List<ResourceSlice> awaitSlices(int count) {
        List<List<ResourceSlice>> seen = new ArrayList<>();
        await().atMost(WAIT).untilAsserted(() -> {
            List<ResourceSlice> slices = slices();
            assertThat(slices).hasSize(count);
            seen.add(slices);
        });
        return seen.get(seen.size() - 1);
    }

    private List<Device> devicesInOrder() {
        return slices().stream().flatMap(slice -> slice.getSpec().getDevices().stream()).toList();
    }

    private static JsonNode withoutTaints(JsonNode body) {
        body.path("spec").path("devices").forEach(device -> ((ObjectNode) device).remove("taints"));
        return body;
    }
}
