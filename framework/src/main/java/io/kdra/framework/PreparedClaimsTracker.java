package io.kdra.framework;

import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.kdra.plugin.ClaimRef;
import io.kdra.plugin.DraPlugin;
import io.kdra.plugin.PrepareResult;
import io.kdra.plugin.UnprepareResult;
import io.kdra.testdriver.ClaimId;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Wraps a driver author's plugin to know which claims it has prepared and not unprepared since, which the test
 * driver reports itself and the Builder's teardown checks on every node.
 */
final class PreparedClaimsTracker implements DraPlugin {

    private final DraPlugin plugin;
    private final Map<String, ClaimId> prepared = new ConcurrentHashMap<>();

    PreparedClaimsTracker(DraPlugin plugin) {
        this.plugin = plugin;
    }

    @Override
    public Map<String, PrepareResult> prepareResourceClaims(List<ResourceClaim> claims) throws Exception {
        Map<String, PrepareResult> results = plugin.prepareResourceClaims(claims);
        for (ResourceClaim claim : claims) {
            PrepareResult result = results.get(claim.getMetadata().getUid());
            if (result != null && result.error() == null) {
                prepared.put(claim.getMetadata().getUid(),
                        new ClaimId(claim.getMetadata().getName(), claim.getMetadata().getUid()));
            }
        }
        return results;
    }

    @Override
    public Map<String, UnprepareResult> unprepareResourceClaims(List<ClaimRef> claims) throws Exception {
        Map<String, UnprepareResult> results = plugin.unprepareResourceClaims(claims);
        for (ClaimRef claim : claims) {
            UnprepareResult result = results.get(claim.uid());
            if (result != null && result.error() == null) {
                prepared.remove(claim.uid());
            }
        }
        return results;
    }

    List<ClaimId> prepared() {
        return List.copyOf(prepared.values());
    }
}
