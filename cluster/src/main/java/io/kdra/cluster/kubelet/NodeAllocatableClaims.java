package io.kdra.cluster.kubelet;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.NodeAllocatableMapping;
import io.fabric8.kubernetes.api.model.resource.v1.NodeAllocatableOverhead;
import io.fabric8.kubernetes.api.model.resource.v1.NodeAllocatableResource;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.kdra.kube.Quantity;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the devices allocated to a pod's claims add to the node resources (gate DRANodeAllocatableResources): for each
 * pod claim, the {@code nodeAllocatableResources} of its allocated devices as their ResourceSlices publish them. A
 * {@code deviceMultiplier} counts once per allocated device; a {@code capacityKey} mapping multiplies the capacity the
 * device consumed under that key (or its whole capacity) by {@code capacityMultiplier} (1 when unset).
 */
final class NodeAllocatableClaims {

    private final KubernetesClient client;

    NodeAllocatableClaims(KubernetesClient client) {
        this.client = client;
    }

    /** The pod's claims with their allocated devices' amounts, in the order of {@code spec.resourceClaims}. */
    List<ClaimAllocatable> of(Pod pod) throws DraManager.DraException {
        List<ClaimAllocatable> claims = new ArrayList<>();
        Map<String, Device> devices = null;
        for (PodResourceClaim podClaim : pod.getSpec().getResourceClaims()) {
            String name = DraManager.claimName(pod, podClaim).name();
            if (name == null) {
                continue;
            }
            ResourceClaim claim;
            try {
                claim = client.dynamicResourceAllocation().v1().resourceClaims()
                        .inNamespace(pod.getMetadata().getNamespace()).withName(name).get();
            } catch (KubernetesClientException e) {
                throw new DraManager.DraException("fetch ResourceClaim " + name + ": " + e.getMessage(), e);
            }
            if (claim == null || claim.getStatus() == null || claim.getStatus().getAllocation() == null
                    || claim.getStatus().getAllocation().getDevices() == null) {
                continue;
            }
            Map<String, Long> mapped = new HashMap<>();
            Map<String, Long> perPod = new HashMap<>();
            Map<String, Long> perContainer = new HashMap<>();
            for (DeviceRequestAllocationResult result : claim.getStatus().getAllocation().getDevices().getResults()) {
                if (devices == null) {
                    devices = slicedDevices();
                }
                Device device = devices.get(key(result.getDriver(), result.getPool(), result.getDevice()));
                if (device == null || device.getNodeAllocatableResources() == null) {
                    continue;
                }
                for (Map.Entry<String, NodeAllocatableResource> entry
                        : device.getNodeAllocatableResources().entrySet()) {
                    String resource = entry.getKey();
                    NodeAllocatableMapping mapping = entry.getValue().getMapping();
                    if (mapping != null) {
                        mapped.merge(resource, mappedAmount(resource, mapping, device, result), Long::sum);
                    }
                    NodeAllocatableOverhead overhead = entry.getValue().getOverhead();
                    if (overhead != null && overhead.getPerPod() != null) {
                        perPod.merge(resource, units(resource, overhead.getPerPod()), Long::sum);
                    }
                    if (overhead != null && overhead.getPerContainer() != null) {
                        perContainer.merge(resource, units(resource, overhead.getPerContainer()), Long::sum);
                    }
                }
            }
            claims.add(new ClaimAllocatable(podClaim.getName(), mapped, perPod, perContainer));
        }
        return claims;
    }

    private static long mappedAmount(String resource, NodeAllocatableMapping mapping, Device device,
            DeviceRequestAllocationResult result) {
        if (mapping.getDeviceMultiplier() != null) {
            return units(resource, mapping.getDeviceMultiplier());
        }
        if (mapping.getCapacityKey() == null) {
            return 0;
        }
        BigDecimal capacity = null;
        if (result.getConsumedCapacity() != null && result.getConsumedCapacity().get(mapping.getCapacityKey()) != null) {
            capacity = Quantity.fromFabric8(result.getConsumedCapacity().get(mapping.getCapacityKey())).value();
        } else if (device.getCapacity() != null && device.getCapacity().get(mapping.getCapacityKey()) != null) {
            capacity = Quantity.fromFabric8(device.getCapacity().get(mapping.getCapacityKey()).getValue()).value();
        }
        if (capacity == null) {
            return 0;
        }
        BigDecimal multiplier = mapping.getCapacityMultiplier() == null ? BigDecimal.ONE
                : Quantity.fromFabric8(mapping.getCapacityMultiplier()).value();
        return PodResourceConfig.units(resource, Quantity.parse(capacity.multiply(multiplier).toPlainString()));
    }

    private Map<String, Device> slicedDevices() throws DraManager.DraException {
        Map<String, Device> devices = new HashMap<>();
        try {
            for (ResourceSlice slice : client.resources(ResourceSlice.class).list().getItems()) {
                for (Device device : slice.getSpec().getDevices()) {
                    devices.put(key(slice.getSpec().getDriver(), slice.getSpec().getPool().getName(),
                            device.getName()), device);
                }
            }
        } catch (KubernetesClientException e) {
            throw new DraManager.DraException("list ResourceSlices: " + e.getMessage(), e);
        }
        return devices;
    }

    private static long units(String resource, io.fabric8.kubernetes.api.model.Quantity quantity) {
        return PodResourceConfig.units(resource, Quantity.fromFabric8(quantity));
    }

    private static String key(String driver, String pool, String device) {
        return driver + "/" + pool + "/" + device;
    }
}
