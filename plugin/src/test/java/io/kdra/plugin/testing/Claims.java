package io.kdra.plugin.testing;

import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Arrays;

/** ResourceClaims in the mock API server. */
public final class Claims {

    private Claims() {
    }

    /** Creates a claim allocated to the given devices and returns it as stored (with its UID). */
    public static ResourceClaim createAllocated(KubernetesClient client, String namespace, String name,
            DeviceRequestAllocationResult... results) {
        return client.resource(new ResourceClaimBuilder()
                .withNewMetadata().withNamespace(namespace).withName(name).endMetadata()
                .withNewSpec().endSpec()
                .withNewStatus()
                .withNewAllocation().withNewDevices().withResults(Arrays.asList(results)).endDevices().endAllocation()
                .endStatus()
                .build()).create();
    }

    /** Creates a claim without allocation. */
    public static ResourceClaim createUnallocated(KubernetesClient client, String namespace, String name) {
        return client.resource(new ResourceClaimBuilder()
                .withNewMetadata().withNamespace(namespace).withName(name).endMetadata()
                .withNewSpec().endSpec()
                .build()).create();
    }

    public static DeviceRequestAllocationResult result(String request, String driver, String pool, String device) {
        return new io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResultBuilder()
                .withRequest(request).withDriver(driver).withPool(pool).withDevice(device).build();
    }
}
