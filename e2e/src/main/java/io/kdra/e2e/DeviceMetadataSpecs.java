package io.kdra.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequest;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
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
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * dra.go group X: the plugin library writes device metadata files per claim and request, which the kubelet mounts into
 * the containers that use them. Each spec runs under two driver configurations, files with v1beta1 only and with
 * v1beta1 then v1alpha1 (v1alpha1 alone is not supported); readers get v1beta1 in both.
 */
@DraSpec
@DisplayName("[sig-node] [DRA] metadata [Feature:DynamicResourceAllocation]")
@Tag("sig-node")
@Tag("DRA")
@Tag("Feature:DynamicResourceAllocation")
class DeviceMetadataSpecs {

    private static final MetadataVersion[] V1BETA1 = {MetadataVersion.V1BETA1};
    private static final MetadataVersion[] V1ALPHA1_AND_V1BETA1 = {MetadataVersion.V1BETA1, MetadataVersion.V1ALPHA1};

    final Framework f = Framework.create("dra");
    final Nodes nodes = Nodes.create(f, 1, 1);

    @Test
    @DisplayName("v1beta1 must mount device metadata for resource claims")
    void v1beta1ResourceClaims() throws Exception {
        mustMountDeviceMetadataForResourceClaims(V1BETA1);
    }

    @Test
    @DisplayName("v1beta1 must map device metadata to the right containers")
    void v1beta1RightContainers() throws Exception {
        mustMapDeviceMetadataToTheRightContainers(V1BETA1);
    }

    @Test
    @DisplayName("v1beta1 must mount device metadata for resource claim templates")
    void v1beta1ResourceClaimTemplates() throws Exception {
        mustMountDeviceMetadataForResourceClaimTemplates(V1BETA1);
    }

    @Test
    @DisplayName("v1alpha1+v1beta1 must mount device metadata for resource claims")
    void v1alpha1AndV1beta1ResourceClaims() throws Exception {
        mustMountDeviceMetadataForResourceClaims(V1ALPHA1_AND_V1BETA1);
    }

    @Test
    @DisplayName("v1alpha1+v1beta1 must map device metadata to the right containers")
    void v1alpha1AndV1beta1RightContainers() throws Exception {
        mustMapDeviceMetadataToTheRightContainers(V1ALPHA1_AND_V1BETA1);
    }

    @Test
    @DisplayName("v1alpha1+v1beta1 must mount device metadata for resource claim templates")
    void v1alpha1AndV1beta1ResourceClaimTemplates() throws Exception {
        mustMountDeviceMetadataForResourceClaimTemplates(V1ALPHA1_AND_V1BETA1);
    }

    private Driver driver(MetadataVersion... versions) throws Exception {
        Driver driver = Driver.instance(f).enableDeviceMetadata(true).deviceMetadataVersions(versions);
        driver.run(nodes, Resources.driverResourcesNow(nodes, 2));
        return driver;
    }

    private void mustMountDeviceMetadataForResourceClaims(MetadataVersion... versions) throws Exception {
        Driver driver = driver(versions);
        Builder b = Builder.now(f, driver);
        ResourceClaim claim = b.create(b.externalClaim());
        Pod pod = b.podExternal(claim.getMetadata().getName());
        b.create(pod);
        b.testPod(pod);

        DeviceMetadata metadata = DeviceMetadataChecks.read(f, pod, "with-resource", MetadataPaths
                .resourceClaimFilePath(driver.name(), claim.getMetadata().getName(), Builder.REQUEST_NAME));
        assertThat(metadata.name()).as("claim name").isEqualTo(claim.getMetadata().getName());
        assertThat(metadata.namespace()).as("claim namespace").isEqualTo(claim.getMetadata().getNamespace());
        assertThat(metadata.uid()).as("claim UID").isEqualTo(claim.getMetadata().getUid());
        assertThat(metadata.podClaimName()).as("podClaimName of a claim referenced by name").isNull();
        DeviceMetadataChecks.checkRequest(metadata, Builder.REQUEST_NAME, driver.name());
    }

    private void mustMapDeviceMetadataToTheRightContainers(MetadataVersion... versions) throws Exception {
        Driver driver = driver(versions);
        Builder b = Builder.now(f, driver);
        ResourceClaim claim = b.externalClaim();
        DeviceRequest request = claim.getSpec().getDevices().getRequests().get(0);
        claim.getSpec().getDevices().setRequests(List.of(
                new DeviceRequestBuilder(request).withName("req0").build(),
                new DeviceRequestBuilder(request).withName("req1").build()));
        claim = b.create(claim);
        String claimName = claim.getMetadata().getName();
        Pod pod = b.podExternal(claimName);
        Container first = pod.getSpec().getContainers().get(0);
        pod.getSpec().setContainers(List.of(
                new ContainerBuilder(first).withName("all-requests").build(),
                new ContainerBuilder(first).withName("req1-only").editResources()
                        .withClaims(new ResourceClaimBuilder().withName(Builder.EXTERNAL_POD_CLAIM_NAME)
                                .withRequest("req1").build())
                        .endResources().build()));
        b.create(pod);
        Pods.waitForRunning(f, pod);

        String req0File = MetadataPaths.resourceClaimFilePath(driver.name(), claimName, "req0");
        String req1File = MetadataPaths.resourceClaimFilePath(driver.name(), claimName, "req1");
        DeviceMetadataChecks.checkRequest(DeviceMetadataChecks.read(f, pod, "all-requests", req0File), "req0",
                driver.name());
        DeviceMetadataChecks.checkRequest(DeviceMetadataChecks.read(f, pod, "all-requests", req1File), "req1",
                driver.name());
        DeviceMetadataChecks.checkRequest(DeviceMetadataChecks.read(f, pod, "req1-only", req1File), "req1",
                driver.name());

        f.by("req0's file must not be in container req1-only");
        Pods.ExecResult req0 = Pods.exec(f, pod, "req1-only", "cat", req0File);
        assertThat(req0.exitCode()).as("exit code of cat %s in container req1-only", req0File).isNotZero();
    }

    private void mustMountDeviceMetadataForResourceClaimTemplates(MetadataVersion... versions) throws Exception {
        Driver driver = driver(versions);
        Builder b = Builder.now(f, driver);
        Builder.PodWithTemplate inline = b.podInline();
        b.create(inline.pod(), inline.template());
        b.testPod(inline.pod());

        DeviceMetadata metadata = DeviceMetadataChecks.read(f, inline.pod(), "with-resource", MetadataPaths
                .resourceClaimTemplateFilePath(driver.name(), Builder.INLINE_CLAIM_NAME, Builder.REQUEST_NAME));
        assertThat(metadata.namespace()).as("claim namespace").isEqualTo(f.namespace());
        assertThat(metadata.podClaimName()).as("podClaimName").isEqualTo(Builder.INLINE_CLAIM_NAME);
        DeviceMetadataChecks.checkRequest(metadata, Builder.REQUEST_NAME, driver.name());
    }
}
