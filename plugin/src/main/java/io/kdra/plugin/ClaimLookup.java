package io.kdra.plugin;

import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;

/**
 * How {@link KubeletPlugin} gets the current ResourceClaim for a NodePrepareResources call. The default GETs it from
 * the API server through the configured Kubernetes client; an informer cache or a fixed set of claims (benchmarks)
 * can take its place.
 */
@FunctionalInterface
public interface ClaimLookup {

    /**
     * @return the claim, or {@code null} if it does not exist
     * @throws Exception if the claim could not be retrieved
     */
    ResourceClaim get(String namespace, String name) throws Exception;
}
