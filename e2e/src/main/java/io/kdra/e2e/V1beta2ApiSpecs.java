package io.kdra.e2e;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.resource.v1beta2.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1beta2.DeviceSubRequestBuilder;
import io.fabric8.kubernetes.api.model.resource.v1beta2.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1beta2.ResourceClaimBuilder;
import io.kdra.framework.Builder;
import io.kdra.framework.DraSpec;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;

/** dra.go group K: the objects written and read as {@code resource.k8s.io/v1beta2}. */
@DraSpec
@DisplayName("[sig-node] [DRA] kubelet [Feature:DynamicResourceAllocation] with v1beta2 API")
@Tag("sig-node")
@Tag("DRA")
@Tag("Feature:DynamicResourceAllocation")
class V1beta2ApiSpecs extends AbstractBetaApiSpecs {

    @Override
    List<HasMetadata> podInlineInThisVersion() {
        Builder.PodWithV1beta2Template inline = b.podInlineWithV1beta2();
        return List.of(inline.pod(), inline.template());
    }

    @Override
    HasMetadata claimWithAlternatives(Map<String, String> parameters) {
        return new ResourceClaimBuilder().withNewMetadata().withName(CLAIM_NAME).endMetadata()
                .withNewSpec().withNewDevices()
                .addNewRequest().withName("request-1").withFirstAvailable(
                        new DeviceSubRequestBuilder().withName("sub-request-1").withDeviceClassName(b.className())
                                .withAllocationMode("ExactCount").withCount(2L).build(),
                        new DeviceSubRequestBuilder().withName("sub-request-2").withDeviceClassName(b.className())
                                .withAllocationMode("ExactCount").withCount(1L).build())
                .endRequest()
                .addNewConfig().withNewOpaque().withDriver(driver.name())
                .withParameters(new LinkedHashMap<>(parameters)).endOpaque().endConfig()
                .endDevices().endSpec().build();
    }

    @Override
    Optional<List<String>> allocatedRequests() {
        ResourceClaim claim = f.client().resources(ResourceClaim.class).inNamespace(f.namespace())
                .withName(CLAIM_NAME).get();
        return Optional.ofNullable(claim.getStatus()).map(status -> status.getAllocation())
                .map(allocation -> allocation.getDevices().getResults().stream()
                        .map(DeviceRequestAllocationResult::getRequest).toList());
    }
}
