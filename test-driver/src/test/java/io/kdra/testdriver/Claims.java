package io.kdra.testdriver;

import io.fabric8.kubernetes.api.model.resource.v1.DeviceAllocationConfiguration;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAllocationConfigurationBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequest;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResultBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** ResourceClaims allocated the way the scheduler would, written through the API server. */
final class Claims {

    private Claims() {
    }

    static DeviceRequestAllocationResult result(String request, String driver, String pool, String device) {
        return new DeviceRequestAllocationResultBuilder()
                .withRequest(request).withDriver(driver).withPool(pool).withDevice(device).build();
    }

    /** An opaque config from the class ({@code admin_} variables) for all requests. */
    static DeviceAllocationConfiguration classConfig(String driver, Object parameters) {
        return config("FromClass", driver, parameters, List.of());
    }

    /** An opaque config from the claim ({@code user_} variables) for the given requests, or all if none. */
    static DeviceAllocationConfiguration claimConfig(String driver, Object parameters, String... requests) {
        return config("FromClaim", driver, parameters, List.of(requests));
    }

    private static DeviceAllocationConfiguration config(String source, String driver, Object parameters,
            List<String> requests) {
        return new DeviceAllocationConfigurationBuilder().withSource(source).withRequests(requests)
                .withNewOpaque().withDriver(driver).withParameters(parameters).endOpaque().build();
    }

    /** Creates a claim whose requests match the results, then writes the allocation into its status. */
    static ResourceClaim allocated(KubernetesClient client, String namespace, String name,
            List<DeviceRequestAllocationResult> results, List<DeviceAllocationConfiguration> configs) {
        Map<String, DeviceRequest> requests = new LinkedHashMap<>();
        for (DeviceRequestAllocationResult result : results) {
            String[] names = result.getRequest().split("/");
            requests.putIfAbsent(names[0], names.length == 1
                    ? new DeviceRequestBuilder().withName(names[0])
                            .withNewExactly().withDeviceClassName("test-class").endExactly().build()
                    : new DeviceRequestBuilder().withName(names[0])
                            .addNewFirstAvailable().withName(names[1]).withDeviceClassName("test-class")
                            .endFirstAvailable().build());
        }
        ResourceClaim created = client.resource(new ResourceClaimBuilder()
                .withNewMetadata().withNamespace(namespace).withName(name).endMetadata()
                .withNewSpec().withNewDevices().withRequests(List.copyOf(requests.values())).endDevices().endSpec()
                .build()).create();
        created.setStatus(new ResourceClaimStatusBuilder()
                .withNewAllocation().withNewDevices().withResults(results).withConfig(configs).endDevices()
                .endAllocation().build());
        return client.resource(created).updateStatus();
    }

    static ResourceClaim allocated(KubernetesClient client, String namespace, String name,
            DeviceRequestAllocationResult... results) {
        return allocated(client, namespace, name, List.of(results), List.of());
    }
}
