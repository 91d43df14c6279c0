package io.kdra.plugin;

import static io.kdra.plugin.DraClient.claim;
import static io.kdra.plugin.DraClient.prepareRequest;
import static io.kdra.plugin.DraClient.unprepareRequest;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kdra.kubelet.api.dra.v1.NodePrepareResourcesResponse;
import io.kdra.plugin.cdi.CdiDevice;
import io.kdra.plugin.cdi.CdiSpec;
import io.kdra.plugin.cdi.ContainerEdits;
import io.kdra.plugin.cdi.FileOperations;
import io.kdra.plugin.cdi.LocalFileOperations;
import io.kdra.plugin.resourceslice.DriverResources;
import io.kdra.plugin.resourceslice.Pool;
import io.kdra.plugin.testing.Channels;
import io.kdra.plugin.testing.Claims;
import io.kdra.plugin.testing.MockApiServer;
import io.kdra.plugin.testing.TempDir;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The example of docs/kubelet-plugin-library.md, run against the mock API server with a real gRPC client. */
class LibraryExampleTest {

    /** The documented example driver: one CDI spec per claim, one CDI device per allocated device. */
    static final class GpuDriver implements DraPlugin {

        private final FileOperations cdi;

        GpuDriver(FileOperations cdi) {
            this.cdi = cdi;
        }

        @Override
        public Map<String, PrepareResult> prepareResourceClaims(List<ResourceClaim> claims) throws Exception {
            Map<String, PrepareResult> results = new HashMap<>();
            for (ResourceClaim claim : claims) { // fetched, allocated and UID-checked by the library
                String uid = claim.getMetadata().getUid();
                List<CdiDevice> cdiDevices = new ArrayList<>();
                List<PreparedDevice> prepared = new ArrayList<>();
                for (DeviceRequestAllocationResult result : claim.getStatus().getAllocation().getDevices()
                        .getResults()) {
                    if (!result.getDriver().equals("gpu.example.com")) {
                        continue;
                    }
                    String name = "claim-" + uid + "-" + result.getDevice();
                    cdiDevices.add(new CdiDevice(name, ContainerEdits.ofEnv(List.of("GPU=" + result.getDevice()))));
                    prepared.add(new PreparedDevice(List.of(result.getRequest()), result.getPool(),
                            result.getDevice(), List.of("gpu.example.com/gpu=" + name)));
                }
                if (!cdiDevices.isEmpty()) {
                    cdi.write("gpu.example.com-" + uid + ".json",
                            CdiSpec.of("0.3.0", "gpu.example.com/gpu", cdiDevices).toJson());
                }
                results.put(uid, PrepareResult.prepared(prepared));
            }
            return results;
        }

        @Override
        public Map<String, UnprepareResult> unprepareResourceClaims(List<ClaimRef> claims) throws Exception {
            Map<String, UnprepareResult> results = new HashMap<>();
            for (ClaimRef claim : claims) {
                cdi.remove("gpu.example.com-" + claim.uid() + ".json"); // idempotent
                results.put(claim.uid(), UnprepareResult.unprepared());
            }
            return results;
        }
    }

    @Test
    void theDocumentedExampleWorks() throws Exception {
        try (TempDir dir = new TempDir(); MockApiServer api = new MockApiServer(); Channels channels = new Channels()) {
            KubernetesClient client = api.client();
            client.nodes().resource(new NodeBuilder().withNewMetadata().withName("node-1").endMetadata().build())
                    .create();
            ResourceClaim claim = Claims.createAllocated(client, "default", "gpu-claim",
                    Claims.result("gpu/first", "gpu.example.com", "node-1", "gpu-0"));
            String uid = claim.getMetadata().getUid();
            Path cdiDir = dir.resolve("cdi");

            try (KubeletPlugin plugin = KubeletPlugin.builder("gpu.example.com",
                            new GpuDriver(new LocalFileOperations(cdiDir)))
                    .nodeName("node-1")
                    .kubernetesClient(client)
                    .registrarDirectory(dir.resolve("registry"))
                    .pluginDataDirectory(dir.resolve("plugin"))
                    .start()) {
                plugin.publishResources(DriverResources.of("node-1", Pool.ofDevices(List.of(
                        new DeviceBuilder().withName("gpu-0").build()))));

                NodePrepareResourcesResponse response = DraClient.V1.prepare(channels.to(plugin.draSocket()),
                        prepareRequest(claim("default", "gpu-claim", uid)));

                assertThat(response.getClaimsOrThrow(uid).getDevices(0).getCdiDeviceIdsList())
                        .containsExactly("gpu.example.com/gpu=claim-" + uid + "-gpu-0");
                assertThat(response.getClaimsOrThrow(uid).getDevices(0).getRequestNamesList())
                        .containsExactly("gpu");
                assertThat(cdiDir.resolve("gpu.example.com-" + uid + ".json")).hasContent(
                        "{\"cdiVersion\":\"0.3.0\",\"kind\":\"gpu.example.com/gpu\",\"devices\":[{\"name\":\"claim-"
                                + uid + "-gpu-0\",\"containerEdits\":{\"env\":[\"GPU=gpu-0\"]}}]}");
                await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(
                        client.dynamicResourceAllocation().v1().resourcesSlices().list().getItems())
                        .singleElement().satisfies(slice -> assertThat(slice.getSpec().getDevices())
                                .extracting(device -> device.getName()).containsExactly("gpu-0")));

                DraClient.V1.unprepare(channels.to(plugin.draSocket()),
                        unprepareRequest(claim("default", "gpu-claim", uid)));

                assertThat(cdiDir.resolve("gpu.example.com-" + uid + ".json")).doesNotExist();
            }
        }
    }
}
