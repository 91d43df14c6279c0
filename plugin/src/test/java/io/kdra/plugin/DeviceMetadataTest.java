package io.kdra.plugin;

import static io.kdra.plugin.DraClient.claim;
import static io.kdra.plugin.DraClient.prepareRequest;
import static io.kdra.plugin.DraClient.unprepareRequest;
import static io.kdra.plugin.testing.Claims.result;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttribute;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttributeBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.grpc.ManagedChannel;
import io.kdra.kubelet.api.dra.v1.NodePrepareResourcesResponse;
import io.kdra.plugin.cdi.CdiSpec;
import io.kdra.plugin.cdi.FileOperations;
import io.kdra.plugin.cdi.LocalFileOperations;
import io.kdra.plugin.cdi.Mount;
import io.kdra.plugin.metadata.DeviceMetadata;
import io.kdra.plugin.metadata.DeviceMetadataCodec;
import io.kdra.plugin.metadata.MetadataPaths;
import io.kdra.plugin.metadata.MetadataVersion;
import io.kdra.plugin.testing.ApiServerFixture;
import io.kdra.plugin.testing.Claims;
import io.kdra.plugin.testing.PluginFixture;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The device metadata files of prepared claims and the CDI specs that mount them (KEP-5304). */
class DeviceMetadataTest {

    private static final String DRIVER = "test.example.com";
    @RegisterExtension
    static final ApiServerFixture api = new ApiServerFixture();
    @RegisterExtension
    final PluginFixture fixture = new PluginFixture();
    private final KubernetesClient client = api.client();
    private final String namespace = api.namespace();
    private KubeletPlugin plugin;

    /** Prepares one device per result, with the attribute {@code device} naming it, and a CDI device of its own. */
    private final DraPlugin driver = new DraPlugin() {
        @Override
        public Map<String, PrepareResult> prepareResourceClaims(List<ResourceClaim> claims) {
            Map<String, PrepareResult> results = new LinkedHashMap<>();
            for (ResourceClaim claim : claims) {
                List<PreparedDevice> devices = new ArrayList<>();
                for (DeviceRequestAllocationResult result : claim.getStatus().getAllocation().getDevices()
                        .getResults()) {
                    devices.add(new PreparedDevice(List.of(result.getRequest()), result.getPool(), result.getDevice(),
                            List.of(DRIVER + "/test=" + result.getDevice()))
                            .withMetadata(new PreparedDevice.Metadata(Map.of("device", string(result.getDevice())),
                                    null)));
                }
                results.put(claim.getMetadata().getUid(), PrepareResult.prepared(devices));
            }
            return results;
        }

        @Override
        public Map<String, UnprepareResult> unprepareResourceClaims(List<ClaimRef> claims) {
            Map<String, UnprepareResult> results = new LinkedHashMap<>();
            claims.forEach(claim -> results.put(claim.uid(), UnprepareResult.unprepared()));
            return results;
        }
    };

    @Test
    void eachRequestGetsAMetadataFileMountedByACdiDeviceOfThatRequest() throws IOException {
        ResourceClaim claim = Claims.createAllocated(client, namespace, "gpus",
                result("req0", DRIVER, "node-1", "device-00"), result("req1/small", DRIVER, "node-1", "device-01"));
        String uid = claim.getMetadata().getUid();
        start(MetadataVersion.V1BETA1, MetadataVersion.V1ALPHA1);

        NodePrepareResourcesResponse response =
                DraClient.V1.prepare(dra(), prepareRequest(claim(namespace, "gpus", uid)));

        assertThat(response.getClaimsOrThrow(uid).getDevicesList())
                .extracting(device -> List.copyOf(device.getCdiDeviceIdsList()))
                .containsExactly(
                        List.of(DRIVER + "/test=device-00", DRIVER + "/metadata=" + uid + "_req0"),
                        List.of(DRIVER + "/test=device-01", DRIVER + "/metadata=" + uid + "_req1"));
        Mount mount = mount(uid, "req1");
        assertThat(mount.containerPath()).isEqualTo(MetadataPaths.resourceClaimFilePath(DRIVER, "gpus", "req1"))
                .isEqualTo("/var/run/kubernetes.io/dra-device-attributes/resourceclaims/gpus/req1/"
                        + DRIVER + "-metadata.json");
        assertThat(mount.options()).containsExactly("ro", "bind");
        Path file = Path.of(mount.hostPath());
        assertThat(file).isEqualTo(fixture.resolve("plugin/dra-device-metadata/" + namespace + "_gpus/req1/"
                + "metadata.json"));
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-r--r--");

        DeviceMetadataCodec.Decoded decoded = DeviceMetadataCodec.decode(Files.readAllBytes(file));
        assertThat(decoded.version()).as("the first version listed comes first").isEqualTo(MetadataVersion.V1BETA1);
        assertThat(decoded.metadata()).isEqualTo(new DeviceMetadata("gpus", namespace, uid, 1, null, List.of(
                new DeviceMetadata.Request("req1/small", List.of(new DeviceMetadata.Device(DRIVER, "node-1",
                        "device-01", Map.of("device", string("device-01")), null))))));
        assertThat(Files.readAllLines(file)).hasSize(2).last().asString()
                .contains("\"apiVersion\":\"metadata.resource.k8s.io/v1alpha1\"");
    }

    @Test
    void aClaimFromATemplateIsMountedUnderThePodsNameForIt() throws IOException {
        ResourceClaim claim = client.resource(new ResourceClaimBuilder(Claims.createAllocated(client, namespace,
                "pod-my-inline-claim-x7k2p", result("my-request", DRIVER, "node-1", "device-00")))
                .editMetadata().addToAnnotations("resource.kubernetes.io/pod-claim-name", "my-inline-claim")
                .endMetadata().build()).update();
        String uid = claim.getMetadata().getUid();
        start(MetadataVersion.V1BETA1);

        DraClient.V1.prepare(dra(), prepareRequest(claim(namespace, "pod-my-inline-claim-x7k2p", uid)));

        Mount mount = mount(uid, "my-request");
        assertThat(mount.containerPath()).isEqualTo(
                "/var/run/kubernetes.io/dra-device-attributes/resourceclaimtemplates/my-inline-claim/my-request/"
                        + DRIVER + "-metadata.json");
        DeviceMetadata metadata = DeviceMetadataCodec.decode(Files.readAllBytes(Path.of(mount.hostPath()))).metadata();
        assertThat(metadata.podClaimName()).isEqualTo("my-inline-claim");
        assertThat(metadata.name()).isEqualTo("pod-my-inline-claim-x7k2p");
    }

    @Test
    void unprepareRemovesTheFilesAndIsIdempotent() throws IOException {
        ResourceClaim claim = Claims.createAllocated(client, namespace, "gpus",
                result("req0", DRIVER, "node-1", "device-00"));
        String uid = claim.getMetadata().getUid();
        start(MetadataVersion.V1BETA1);
        DraClient.V1.prepare(dra(), prepareRequest(claim(namespace, "gpus", uid)));
        Path cdiSpec = fixture.resolve("cdi/" + DRIVER + "_metadata_" + uid + "_req0.json");
        assertThat(cdiSpec).exists();

        for (int i = 0; i < 2; i++) {
            var response = DraClient.V1.unprepare(dra(), unprepareRequest(claim(namespace, "gpus", uid)));
            assertThat(response.getClaimsOrThrow(uid).getError()).isEmpty();
        }

        assertThat(cdiSpec).doesNotExist();
        assertThat(fixture.resolve("plugin/dra-device-metadata")).isEmptyDirectory();
    }

    @Test
    void withoutTheOptionNothingIsWritten() throws IOException {
        ResourceClaim claim = Claims.createAllocated(client, namespace, "gpus",
                result("req0", DRIVER, "node-1", "device-00"));
        plugin = fixture.start(fixture.builder(DRIVER, driver).kubernetesClient(client)
                .cdiFiles(new LocalFileOperations(fixture.resolve("cdi"))));

        NodePrepareResourcesResponse response = DraClient.V1.prepare(dra(),
                prepareRequest(claim(namespace, "gpus", claim.getMetadata().getUid())));

        assertThat(response.getClaimsOrThrow(claim.getMetadata().getUid()).getDevices(0).getCdiDeviceIdsList())
                .containsExactly(DRIVER + "/test=device-00");
        assertThat(fixture.resolve("cdi")).doesNotExist();
        assertThat(fixture.resolve("plugin/dra-device-metadata")).doesNotExist();
    }

    @Test
    void aFileThatCannotBeWrittenFailsTheClaimWithTheReason() throws IOException {
        ResourceClaim claim = Claims.createAllocated(client, namespace, "gpus",
                result("req0", DRIVER, "node-1", "device-00"));
        String uid = claim.getMetadata().getUid();
        plugin = fixture.start(fixture.builder(DRIVER, driver).kubernetesClient(client)
                .enableDeviceMetadata(true).metadataVersions(MetadataVersion.V1BETA1)
                .cdiFiles(new FileOperations() {
                    @Override
                    public void write(String fileName, byte[] content) throws IOException {
                        throw new IOException("read-only file system");
                    }

                    @Override
                    public void remove(String fileName) {
                    }
                }));

        NodePrepareResourcesResponse response = DraClient.V1.prepare(dra(),
                prepareRequest(claim(namespace, "gpus", uid)));

        assertThat(response.getClaimsOrThrow(uid).getError())
                .startsWith("write CDI spec for device metadata of request req0: ")
                .contains("read-only file system");
    }

    @Test
    void enablingNeedsAVersion() {
        assertThatThrownBy(() -> fixture.builder(DRIVER, driver).enableDeviceMetadata(true).start())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("device metadata is enabled but no metadata version is set; choose from "
                        + "[metadata.resource.k8s.io/v1alpha1, metadata.resource.k8s.io/v1beta1]");
    }

    private void start(MetadataVersion... versions) throws IOException {
        plugin = fixture.start(fixture.builder(DRIVER, driver).kubernetesClient(client)
                .enableDeviceMetadata(true).metadataVersions(versions)
                .cdiFiles(new LocalFileOperations(fixture.resolve("cdi"))));
    }

    private Mount mount(String uid, String request) throws IOException {
        CdiSpec spec = CdiSpec.fromJson(Files.readAllBytes(
                fixture.resolve("cdi/" + DRIVER + "_metadata_" + uid + "_" + request + ".json")));
        assertThat(spec.kind()).isEqualTo(DRIVER + "/metadata");
        assertThat(spec.devices()).singleElement().satisfies(device -> {
            assertThat(device.name()).isEqualTo(uid + "_" + request);
            assertThat(device.containerEdits().mounts()).hasSize(1);
        });
        return spec.devices().get(0).containerEdits().mounts().get(0);
    }

    private ManagedChannel dra() {
        return fixture.dial(plugin.draSocket());
    }

    private static DeviceAttribute string(String value) {
        return new DeviceAttributeBuilder().withString(value).build();
    }
}
