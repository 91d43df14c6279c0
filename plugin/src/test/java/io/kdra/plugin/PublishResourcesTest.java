package io.kdra.plugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.resource.v1.ResourcePool;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kdra.plugin.resourceslice.Devices;
import io.kdra.plugin.resourceslice.DriverResources;
import io.kdra.plugin.resourceslice.Pool;
import io.kdra.plugin.testing.ApiServerFixture;
import io.kdra.plugin.testing.PluginFixture;
import java.io.IOException;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link KubeletPlugin#publishResources}: the plugin's own publisher, owned by its node. */
class PublishResourcesTest {

    private static final Duration WAIT = Duration.ofSeconds(30);
    @RegisterExtension
    static final ApiServerFixture api = new ApiServerFixture();
    @RegisterExtension
    final PluginFixture fixture = new PluginFixture();
    private final KubernetesClient client = api.client();
    private Node node;

    @BeforeEach
    void createNode() {
        node = api.createNode();
    }

    @Test
    void publishedResourcesFollowTheDriverAndStayAfterStopByDefault() throws IOException {
        try (KubeletPlugin plugin = builder().start()) {
            plugin.publishResources(DriverResources.of(nodeName(), Pool.ofDevices(Devices.plain(2))));

            await().atMost(WAIT).untilAsserted(() -> assertThat(slices()).singleElement().satisfies(slice -> {
                assertThat(slice.getSpec().getNodeName()).isEqualTo(nodeName());
                assertThat(slice.getSpec().getDevices()).isEqualTo(Devices.plain(2));
                assertThat(slice.getMetadata().getOwnerReferences()).singleElement()
                        .satisfies(owner -> assertThat(owner.getUid()).isEqualTo(node.getMetadata().getUid()));
            }));

            plugin.publishResources(DriverResources.of(nodeName(), Pool.ofDevices(Devices.plain(130))));

            await().atMost(WAIT).untilAsserted(() -> assertThat(slices())
                    .extracting(slice -> slice.getSpec().getPool())
                    .containsExactly(new ResourcePool(2L, nodeName(), 2L), new ResourcePool(2L, nodeName(), 2L)));
        }

        assertThat(slices()).hasSize(2);
    }

    @Test
    void stopDeletesTheSlicesWhenAskedTo() throws IOException {
        KubeletPlugin plugin = fixture.start(builder().deleteResourceSlicesOnStop(true));
        plugin.publishResources(DriverResources.of(nodeName(), Pool.ofDevices(Devices.plain(3))));
        await().atMost(WAIT).untilAsserted(() -> assertThat(slices()).hasSize(1));

        plugin.stop();

        assertThat(slices()).isEmpty();
    }

    private KubeletPlugin.Builder builder() {
        return fixture.builder(api.driverName(), new RecordingDriver())
                .nodeName(nodeName())
                .kubernetesClient(client)
                .resourceSliceSyncDelay(Duration.ofMillis(50));
    }

    private String nodeName() {
        return api.nodeName();
    }

    private List<ResourceSlice> slices() {
        return client.dynamicResourceAllocation().v1().resourcesSlices().list().getItems().stream()
                .filter(slice -> api.driverName().equals(slice.getSpec().getDriver()))
                .sorted(Comparator.comparing(slice -> slice.getMetadata().getName()))
                .toList();
    }
}
