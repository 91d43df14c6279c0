package io.kdra.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttribute;
import io.kdra.framework.Framework;
import io.kdra.framework.Pods;
import io.kdra.plugin.metadata.DeviceMetadata;
import io.kdra.plugin.metadata.DeviceMetadataCodec;
import io.kdra.plugin.metadata.MetadataVersion;
import io.kdra.testdriver.ExamplePlugin;

/** What the device metadata specs check in a container: a file read through {@code pods/exec} and its content. */
final class DeviceMetadataChecks {

    private DeviceMetadataChecks() {
    }

    /**
     * Reads a metadata file with {@code cat} in the container and decodes it with validation; both spec variants
     * expect the v1beta1 object first.
     */
    static DeviceMetadata read(Framework f, Pod pod, String container, String path) throws Exception {
        f.by("reading " + path + " in container " + container);
        Pods.ExecResult result = Pods.exec(f, pod, container, "cat", path);
        assertThat(result.stderr()).as("stderr of cat %s in container %s", path, container).isEmpty();
        DeviceMetadataCodec.Decoded decoded = DeviceMetadataCodec.decode(result.stdout());
        assertThat(decoded.version()).as("group version of %s", path).isEqualTo(MetadataVersion.V1BETA1);
        return decoded.metadata();
    }

    /**
     * The file is the first of the claim's preparation and describes exactly this request, with devices of the driver
     * whose attributes name driver, pool and device.
     */
    static void checkRequest(DeviceMetadata metadata, String requestName, String driverName) {
        assertThat(metadata.generation()).as("generation").isEqualTo(1);
        assertThat(metadata.requests()).as("requests").singleElement().satisfies(request -> {
            assertThat(request.name()).as("request name").isEqualTo(requestName);
            assertThat(request.devices()).as("devices of request %s", requestName).isNotEmpty()
                    .allSatisfy(device -> checkDevice(device, driverName));
        });
    }

    private static void checkDevice(DeviceMetadata.Device device, String driverName) {
        assertThat(device.driver()).as("driver").isEqualTo(driverName);
        assertThat(device.pool()).as("pool").isNotEmpty();
        assertThat(device.name()).as("device name").isNotEmpty();
        assertThat(stringAttribute(device, ExamplePlugin.DRIVER_NAME_ATTRIBUTE)).isEqualTo(driverName);
        assertThat(stringAttribute(device, ExamplePlugin.POOL_ATTRIBUTE)).isEqualTo(device.pool());
        assertThat(stringAttribute(device, ExamplePlugin.DEVICE_ATTRIBUTE)).isEqualTo(device.name());
    }

    private static String stringAttribute(DeviceMetadata.Device device, String name) {
        DeviceAttribute attribute = device.attributes().get(name);
        assertThat(attribute).as("attribute %s of device %s", name, device.name()).isNotNull();
        return attribute.getString();
    }
}
