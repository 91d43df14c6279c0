package io.kdra.plugin;

import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A driver for tests: prepares one device per allocation result with a CDI ID derived from claim UID and request,
 * records what it was called with and how many calls ran at once, and can be told to fail or to wait.
 */
final class RecordingDriver implements DraPlugin {

    /** Runs inside the driver for every call, for example to block it. */
    @FunctionalInterface
    interface Hook {
        void run() throws Exception;
    }

    final List<List<String>> prepareCalls = new CopyOnWriteArrayList<>();
    final List<List<ClaimRef>> unprepareCalls = new CopyOnWriteArrayList<>();
    final Set<String> prepared = ConcurrentHashMap.newKeySet();
    final Map<String, String> claimErrors = new ConcurrentHashMap<>();
    private final AtomicInteger running = new AtomicInteger();
    private final AtomicInteger maxRunning = new AtomicInteger();
    volatile Exception failure;
    volatile Hook hook = () -> { };

    @Override
    public Map<String, PrepareResult> prepareResourceClaims(List<ResourceClaim> claims) throws Exception {
        enter();
        try {
            prepareCalls.add(claims.stream().map(claim -> claim.getMetadata().getName()).toList());
            hook.run();
            if (failure != null) {
                throw failure;
            }
            Map<String, PrepareResult> results = new LinkedHashMap<>();
            for (ResourceClaim claim : claims) {
                String uid = claim.getMetadata().getUid();
                String error = claimErrors.get(claim.getMetadata().getName());
                if (error != null) {
                    results.put(uid, PrepareResult.failed(error));
                    continue;
                }
                List<PreparedDevice> devices = new ArrayList<>();
                for (DeviceRequestAllocationResult result : claim.getStatus().getAllocation().getDevices()
                        .getResults()) {
                    String base = result.getRequest().split("/")[0];
                    devices.add(new PreparedDevice(List.of(result.getRequest()), result.getPool(), result.getDevice(),
                            List.of("test.example.com/test=claim-" + uid + "-" + base), result.getShareID()));
                }
                prepared.add(uid);
                results.put(uid, PrepareResult.prepared(devices));
            }
            return results;
        } finally {
            running.decrementAndGet();
        }
    }

    @Override
    public Map<String, UnprepareResult> unprepareResourceClaims(List<ClaimRef> claims) throws Exception {
        enter();
        try {
            unprepareCalls.add(claims);
            hook.run();
            if (failure != null) {
                throw failure;
            }
            Map<String, UnprepareResult> results = new LinkedHashMap<>();
            for (ClaimRef claim : claims) {
                prepared.remove(claim.uid());
                String error = claimErrors.get(claim.name());
                results.put(claim.uid(), error == null ? UnprepareResult.unprepared() : UnprepareResult.failed(error));
            }
            return results;
        } finally {
            running.decrementAndGet();
        }
    }

    /** The most calls that were inside the driver at the same time. */
    int maxConcurrentCalls() {
        return maxRunning.get();
    }

    private void enter() {
        int now = running.incrementAndGet();
        maxRunning.accumulateAndGet(now, Math::max);
    }
}
