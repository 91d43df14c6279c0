package io.kdra.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClassBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.kdra.framework.Builder;
import io.kdra.framework.DraSpec;
import io.kdra.framework.Driver;
import io.kdra.framework.Framework;
import io.kdra.framework.Nodes;
import io.kdra.framework.Pods;
import io.kdra.framework.Resources;
import io.kdra.plugin.metadata.DeviceMetadata;
import io.kdra.plugin.metadata.MetadataPaths;
import io.kdra.plugin.metadata.MetadataVersion;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * dra.go group Y: two drivers write metadata files for the same request of one claim, each its own file named after
 * the driver.
 */
@DraSpec
@DisplayName("[sig-node] [DRA] metadata [Feature:DynamicResourceAllocation]")
@Tag("sig-node")
@Tag("DRA")
@Tag("Feature:DynamicResourceAllocation")
class DeviceMetadataMultipleDriversSpecs {

    final Framework f = Framework.create("dra");
    final Nodes nodes = Nodes.create(f, 1, 1);

    @Test
    @DisplayName("must not race when multiple drivers write metadata for the same request")
    void mustNotRace() throws Exception {
        Driver driverA = Driver.instance(f).nameSuffix("-a").enableDeviceMetadata(true)
                .deviceMetadataVersions(MetadataVersion.V1BETA1);
        driverA.run(nodes, Resources.driverResourcesNow(nodes, 1));
        Driver driverB = Driver.instance(f).nameSuffix("-b").enableDeviceMetadata(true)
                .deviceMetadataVersions(MetadataVersion.V1BETA1);
        driverB.run(nodes, Resources.driverResourcesNow(nodes, 1));
        Builder b = Builder.now(f, driverA);

        f.by("a class that selects the devices of both drivers");
        DeviceClass sharedClass = new DeviceClassBuilder().withNewMetadata().withName(f.namespace() + "-shared-class")
                .endMetadata().withNewSpec().addNewSelector().withNewCel()
                .withExpression("device.driver == \"" + driverA.name() + "\" || device.driver == \""
                        + driverB.name() + "\"")
                .endCel().endSelector().endSpec().build();
        b.create(sharedClass);
        // two devices for one request: each driver has one, so each prepares one device of the same request
        ResourceClaim claim = b.create(new ResourceClaimBuilder().withNewMetadata().withName("multi-driver-claim")
                .withNamespace(f.namespace()).endMetadata()
                .withNewSpec().withNewDevices().addNewRequest().withName(Builder.REQUEST_NAME).withNewExactly()
                .withDeviceClassName(sharedClass.getMetadata().getName()).withAllocationMode("ExactCount")
                .withCount(2L).endExactly().endRequest().endDevices().endSpec().build());
        Pod pod = b.podExternal(claim.getMetadata().getName());
        b.create(pod);
        Pods.waitForRunning(f, pod);

        for (Driver driver : new Driver[] {driverA, driverB}) {
            DeviceMetadata metadata = DeviceMetadataChecks.read(f, pod, "with-resource", MetadataPaths
                    .resourceClaimFilePath(driver.name(), claim.getMetadata().getName(), Builder.REQUEST_NAME));
            assertThat(metadata.name()).as("claim name").isEqualTo(claim.getMetadata().getName());
            assertThat(metadata.uid()).as("claim UID").isEqualTo(claim.getMetadata().getUid());
            DeviceMetadataChecks.checkRequest(metadata, Builder.REQUEST_NAME, driver.name());
            assertThat(metadata.requests().get(0).devices()).as("devices of driver %s", driver.name()).hasSize(1);
        }
    }
}
