package io.kdra.cluster.controller;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResultBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceToleration;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplate;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplateBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Objects the controller tests create, and the scheduler's writes they stand in for. */
final class Fixtures {

    static final String DRIVER = "test.example.com";

    private Fixtures() {}

    static ResourceClaimTemplate template(KubernetesClient client, String namespace, String name,
            Map<String, String> labels, Map<String, String> annotations) {
        return client.resources(ResourceClaimTemplate.class).inNamespace(namespace).resource(
                new ResourceClaimTemplateBuilder().withNewMetadata().withName(name).endMetadata()
                        .withNewSpec().withNewMetadata().withLabels(labels).withAnnotations(annotations).endMetadata()
                        .withNewSpec().withNewDevices().addNewRequest().withName("dev").withNewExactly()
                        .withDeviceClassName("gpu").endExactly().endRequest().endDevices().endSpec()
                        .endSpec().build()).create();
    }

    static ResourceClaim claim(KubernetesClient client, String namespace, String name) {
        return client.resources(ResourceClaim.class).inNamespace(namespace).resource(
                new ResourceClaimBuilder().withNewMetadata().withName(name).endMetadata()
                        .withNewSpec().withNewDevices().addNewRequest().withName("dev").withNewExactly()
                        .withDeviceClassName("gpu").endExactly().endRequest().endDevices().endSpec()
                        .build()).create();
    }

    /** A pod using a template (claim entry {@code gpu}) or an existing claim. */
    static Pod pod(KubernetesClient client, String namespace, String name, String template, String claim,
            String nodeName) {
        var builder = new PodBuilder().withNewMetadata().withName(name).endMetadata().withNewSpec()
                .withNodeName(nodeName)
                .addNewResourceClaim().withName("gpu").withResourceClaimTemplateName(template)
                .withResourceClaimName(claim).endResourceClaim()
                .addNewContainer().withName("c").withImage("busybox").withNewResources().addNewClaim()
                .withName("gpu").endClaim().endResources().endContainer()
                .endSpec();
        return client.pods().inNamespace(namespace).resource(builder.build()).create();
    }

    /**
     * What the scheduler writes: the delete-protection finalizer, then allocation and reservation in one status
     * write, with the device tolerations of the request in the result.
     */
    static ResourceClaim allocate(KubernetesClient client, String namespace, String claimName, Pod pod,
            String poolAndNode, String device, List<DeviceToleration> tolerations) {
        var claims = client.resources(ResourceClaim.class).inNamespace(namespace);
        ResourceClaim claim = claims.withName(claimName).get();
        List<String> finalizers = new ArrayList<>(claim.getMetadata().getFinalizers());
        finalizers.add(PodClaims.DELETE_PROTECTION_FINALIZER);
        claim = claims.resource(new ResourceClaimBuilder(claim).editMetadata().withFinalizers(finalizers)
                .endMetadata().build()).update();
        var status = new ResourceClaimBuilder(claim).withNewStatus().withNewAllocation().withNewDevices()
                .addToResults(new DeviceRequestAllocationResultBuilder().withRequest("dev").withDriver(DRIVER)
                        .withPool(poolAndNode).withDevice(device).withTolerations(tolerations).build())
                .endDevices().endAllocation();
        if (pod != null) {
            status.addNewReservedFor().withResource("pods").withName(pod.getMetadata().getName())
                    .withUid(pod.getMetadata().getUid()).endReservedFor();
        }
        return claims.resource(status.endStatus().build()).updateStatus();
    }
}
