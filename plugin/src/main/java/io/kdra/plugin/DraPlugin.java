package io.kdra.plugin;

import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import java.util.List;
import java.util.Map;

/**
 * What a DRA driver implements; {@link KubeletPlugin} serves it on every enabled version of the kubelet's DRA gRPC
 * API. Both calls must be idempotent: the kubelet repeats them, for example after it restarted.
 *
 * <p>Before {@link #prepareResourceClaims} is called, the library has fetched every claim of the request
 * (resource.k8s.io/v1) and answered claims that are missing, unallocated or replaced by a claim with another UID
 * itself; the driver only sees claims that passed. Unless serialization was turned off, the library calls at most one
 * of these methods at a time (across all instances sharing a lock file with rolling updates).
 */
public interface DraPlugin {

    /**
     * Prepares the devices allocated to the given claims, for example by writing CDI specs.
     *
     * @param claims the current claim objects, each allocated
     * @return one result per claim, keyed by claim UID
     * @throws Exception to fail the whole call; the kubelet then ignores all results and retries
     */
    Map<String, PrepareResult> prepareResourceClaims(List<ResourceClaim> claims) throws Exception;

    /**
     * Undoes {@link #prepareResourceClaims}. The claims may already be deleted, so only references are given; a claim
     * that is not prepared must be reported as unprepared.
     *
     * @param claims the claims to unprepare
     * @return one result per claim, keyed by claim UID
     * @throws Exception to fail the whole call; the kubelet retries it
     */
    Map<String, UnprepareResult> unprepareResourceClaims(List<ClaimRef> claims) throws Exception;
}
