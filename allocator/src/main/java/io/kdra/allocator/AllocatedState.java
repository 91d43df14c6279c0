package io.kdra.allocator;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.AllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import java.math.BigDecimal;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Devices that are already taken, by allocated claims and by allocations in flight. The allocator reads these
 * collections during a call and never modifies them; they are not copied, so callers must not change them while an
 * allocation runs.
 *
 * @param devices devices allocated exclusively (results without admin access and without a share ID)
 * @param sharedDevices devices with at least one shared allocation (results with a share ID)
 * @param consumedCapacity per shared device, the capacity its shares consume, keyed by fully qualified capacity name
 *     ({@code <domain>/<name>}; names without a domain belong to the device's driver)
 */
public record AllocatedState(
        Set<DeviceId> devices, Set<DeviceId> sharedDevices, Map<DeviceId, Map<String, BigDecimal>> consumedCapacity) {

    /** Nothing allocated. */
    public static final AllocatedState NONE = new AllocatedState(Set.of(), Set.of(), Map.of());

    public AllocatedState {
        Objects.requireNonNull(devices, "devices");
        Objects.requireNonNull(sharedDevices, "sharedDevices");
        Objects.requireNonNull(consumedCapacity, "consumedCapacity");
    }

    /** Only exclusively allocated devices. */
    public static AllocatedState of(Set<DeviceId> devices) {
        return new AllocatedState(devices, Set.of(), Map.of());
    }

    /**
     * Collects what the allocations of {@code claims} take, as the scheduler does: results with admin access are not
     * counted, results with a share ID count as shared and add their consumed capacity.
     *
     * @throws IllegalArgumentException when a consumed capacity is not a valid quantity
     */
    public static AllocatedState fromClaims(Collection<ResourceClaim> claims) {
        Builder builder = new Builder(NONE);
        for (ResourceClaim claim : claims) {
            if (claim.getStatus() != null && claim.getStatus().getAllocation() != null) {
                builder.add(claim.getStatus().getAllocation(), Names.of(claim));
            }
        }
        return builder.build();
    }

    /**
     * A new state with the devices of {@code allocations} added, for example to allocate the next pod while the
     * results of the previous one are still being written.
     *
     * @throws IllegalArgumentException when a consumed capacity is not a valid quantity
     */
    public AllocatedState plus(Collection<AllocationResult> allocations) {
        Builder builder = new Builder(this);
        for (AllocationResult allocation : allocations) {
            builder.add(allocation, "allocation result");
        }
        return builder.build();
    }

    boolean isExclusive(DeviceId id) {
        return devices.contains(id);
    }

    /** Allocated in any way, so that the device's counters are consumed. */
    boolean isAllocated(DeviceId id) {
        return devices.contains(id) || sharedDevices.contains(id);
    }

    private static final class Builder {
        private final Set<DeviceId> devices;
        private final Set<DeviceId> shared;
        private final Map<DeviceId, Map<String, BigDecimal>> capacity;

        Builder(AllocatedState base) {
            devices = new HashSet<>(base.devices);
            shared = new HashSet<>(base.sharedDevices);
            capacity = new HashMap<>();
            base.consumedCapacity.forEach((id, consumed) -> capacity.put(id, new HashMap<>(consumed)));
        }

        void add(AllocationResult allocation, String owner) {
            if (allocation.getDevices() == null) {
                return;
            }
            for (DeviceRequestAllocationResult result : allocation.getDevices().getResults()) {
                if (Boolean.TRUE.equals(result.getAdminAccess())) {
                    continue;
                }
                DeviceId id = new DeviceId(result.getDriver(), result.getPool(), result.getDevice());
                if (result.getShareID() == null) {
                    devices.add(id);
                    continue;
                }
                shared.add(id);
                if (result.getConsumedCapacity() == null || result.getConsumedCapacity().isEmpty()) {
                    continue;
                }
                Map<String, BigDecimal> consumed = capacity.computeIfAbsent(id, key -> new HashMap<>());
                for (Map.Entry<String, Quantity> entry : result.getConsumedCapacity().entrySet()) {
                    String name = Names.qualify(entry.getKey(), id.driver());
                    BigDecimal amount = Quantities.amountOf(entry.getValue(), () -> owner + ", device " + id
                            + ": consumed capacity " + entry.getKey());
                    consumed.merge(name, amount, BigDecimal::add);
                }
            }
        }

        AllocatedState build() {
            return new AllocatedState(devices, shared, capacity);
        }
    }
}
