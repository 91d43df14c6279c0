package io.kdra.plugin.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttributeBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.NetworkDeviceDataBuilder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DeviceMetadataCodecTest {

    private static final DeviceMetadata METADATA = new DeviceMetadata("claim", "ns", "uid-1", 1, "my-claim", List.of(
            new DeviceMetadata.Request("req/sub", List.of(new DeviceMetadata.Device("gpu.example.com", "pool-a",
                    "dev-0", Map.of(
                            "model", new DeviceAttributeBuilder().withString("A100").build(),
                            "memory", new DeviceAttributeBuilder().withInt(80L).build(),
                            "example.com/ids", new DeviceAttributeBuilder().withStrings("x", "y").build()),
                    new NetworkDeviceDataBuilder().withHardwareAddress("aa:bb").withInterfaceName("eth1")
                            .withIps("10.0.0.2/24").build())))));

    @Test
    void roundTripsEveryField() {
        byte[] encoded = DeviceMetadataCodec.encode(METADATA, List.of(MetadataVersion.V1BETA1));

        assertThat(DeviceMetadataCodec.decode(encoded))
                .isEqualTo(new DeviceMetadataCodec.Decoded(MetadataVersion.V1BETA1, METADATA));
    }

    @Test
    void writesOneObjectPerVersionInTheGivenOrderAndReadersTakeTheFirst() {
        String stream = new String(DeviceMetadataCodec.encode(METADATA,
                List.of(MetadataVersion.V1ALPHA1, MetadataVersion.V1BETA1)), StandardCharsets.UTF_8);

        assertThat(stream.lines()).hasSize(2);
        assertThat(stream.lines().toList().get(0)).startsWith(
                "{\"kind\":\"DeviceMetadata\",\"apiVersion\":\"metadata.resource.k8s.io/v1alpha1\","
                        + "\"metadata\":{\"name\":\"claim\",\"namespace\":\"ns\",\"uid\":\"uid-1\",\"generation\":1},"
                        + "\"podClaimName\":\"my-claim\",\"requests\":[{\"name\":\"req/sub\",\"devices\":[{"
                        + "\"driver\":\"gpu.example.com\",\"pool\":\"pool-a\",\"name\":\"dev-0\",\"attributes\":{"
                        + "\"example.com/ids\":{\"strings\":[\"x\",\"y\"]},\"memory\":{\"int\":80},"
                        + "\"model\":{\"string\":\"A100\"}},");
        assertThat(DeviceMetadataCodec.decode(stream).version()).isEqualTo(MetadataVersion.V1ALPHA1);
    }

    @Test
    void unknownVersionsAreSkipped() {
        String stream = "{\"kind\":\"DeviceMetadata\",\"apiVersion\":\"metadata.resource.k8s.io/v2\"}\n"
                + new String(DeviceMetadataCodec.encode(METADATA, List.of(MetadataVersion.V1BETA1)),
                        StandardCharsets.UTF_8);

        assertThat(DeviceMetadataCodec.decode(stream).metadata()).isEqualTo(METADATA);
    }

    @Test
    void aStreamWithoutAKnownVersionIsRejected() {
        assertThatThrownBy(() -> DeviceMetadataCodec.decode(
                "{\"kind\":\"DeviceMetadata\",\"apiVersion\":\"metadata.resource.k8s.io/v2\"}"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("no DeviceMetadata of a known version ([metadata.resource.k8s.io/v1alpha1, "
                        + "metadata.resource.k8s.io/v1beta1]) in the stream; found [metadata.resource.k8s.io/v2, "
                        + "Kind=DeviceMetadata]");
        assertThatThrownBy(() -> DeviceMetadataCodec.decode("cat: no such file"))
                .hasMessageStartingWith("invalid device metadata stream: ");
    }

    @Test
    void invalidObjectsNameTheField() {
        String withoutPool = "{\"kind\":\"DeviceMetadata\",\"apiVersion\":\"metadata.resource.k8s.io/v1beta1\","
                + "\"requests\":[{\"name\":\"r\",\"devices\":[{\"driver\":\"d\",\"name\":\"n\"}]}]}";
        assertThatThrownBy(() -> DeviceMetadataCodec.decode(withoutPool))
                .hasMessage("invalid DeviceMetadata: requests[0].devices[0].pool: Required value");

        String twoValues = "{\"kind\":\"DeviceMetadata\",\"apiVersion\":\"metadata.resource.k8s.io/v1beta1\","
                + "\"requests\":[{\"name\":\"r\",\"devices\":[{\"driver\":\"d\",\"pool\":\"p\",\"name\":\"n\","
                + "\"attributes\":{\"a\":{\"int\":1,\"string\":\"x\"}}}]}]}";
        assertThatThrownBy(() -> DeviceMetadataCodec.decode(twoValues))
                .hasMessage("invalid DeviceMetadata: requests[0].devices[0].attributes[a]: must have exactly one "
                        + "value, has 2");
    }

    @Test
    void encodingNeedsAVersion() {
        assertThatThrownBy(() -> DeviceMetadataCodec.encode(METADATA, List.of()))
                .hasMessage("no metadata version to encode ns/claim in");
    }

    @Test
    void containerPathsFollowTheUpstreamLayout() {
        assertThat(MetadataPaths.resourceClaimFilePath("gpu.example.com", "claim", "req"))
                .isEqualTo("/var/run/kubernetes.io/dra-device-attributes/resourceclaims/claim/req/"
                        + "gpu.example.com-metadata.json");
        assertThat(MetadataPaths.resourceClaimTemplateFilePath("gpu.example.com", "pod-claim", "req"))
                .isEqualTo("/var/run/kubernetes.io/dra-device-attributes/resourceclaimtemplates/pod-claim/req/"
                        + "gpu.example.com-metadata.json");
    }
}
