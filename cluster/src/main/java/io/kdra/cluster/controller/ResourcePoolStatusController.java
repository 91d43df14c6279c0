package io.kdra.cluster.controller;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import io.kdra.kube.client.Informers;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * kube-controller-manager's resourcepoolstatusrequest controller (feature gate DRAResourcePoolStatus): every
 * ResourcePoolStatusRequest without status gets one, computed once by {@link PoolStatusReport} from the informers'
 * slices and claims, and is never looked at again. While a pool is incomplete (its driver is still publishing) the
 * request is retried up to {@value #MAX_RETRIES} times, then written as it is. Requests are not deleted after their
 * TTL: the embedded cluster does not live for an hour.
 */
public final class ResourcePoolStatusController
        extends InformerController<ResourcePoolStatusController, String> {

    static final ResourceDefinitionContext REQUESTS = new ResourceDefinitionContext.Builder()
            .withGroup("resource.k8s.io").withVersion("v1alpha3").withKind("ResourcePoolStatusRequest")
            .withPlural("resourcepoolstatusrequests").withNamespaced(false).build();

    private static final Logger LOG = LoggerFactory.getLogger(ResourcePoolStatusController.class);
    private static final int MAX_RETRIES = 5;
    private static final Duration RETRY_DELAY = Duration.ofMillis(500);

    private final Clock clock;
    private final SharedIndexInformer<GenericKubernetesResource> requests;
    private final SharedIndexInformer<ResourceSlice> slices;
    private final SharedIndexInformer<ResourceClaim> claims;
    private final Map<String, Integer> retries = new ConcurrentHashMap<>();

    /** A controller on shared informers, started and closed by their owner. */
    public ResourcePoolStatusController(SharedInformers informers, Clock clock) {
        super(informers, false, "resourcepoolstatusrequest-controller", 1);
        this.clock = clock;
        this.requests = informers.informer(REQUESTS);
        this.slices = informers.informer(ResourceSlice.class);
        this.claims = informers.informer(ResourceClaim.class);
        requests.addEventHandler(Informers.handler(this::enqueue,
                request -> retries.remove(request.getMetadata().getName())));
    }

    private void enqueue(GenericKubernetesResource request) {
        if (request.getAdditionalProperties().get("status") == null) {
            queue.add(request.getMetadata().getName());
        }
    }

    @Override
    Duration sync(String name) {
        GenericKubernetesResource request = requests.getStore().getByKey(Cache.namespaceKeyFunc(null, name));
        if (request == null || request.getAdditionalProperties().get("status") != null) {
            retries.remove(name);
            return null;
        }
        Map<?, ?> spec = request.getAdditionalProperties().get("spec") instanceof Map<?, ?> map ? map : Map.of();
        String driver = spec.get("driver") instanceof String value ? value : "";
        String poolName = spec.get("poolName") instanceof String value ? value : null;
        Integer limit = spec.get("limit") instanceof Number value ? value.intValue() : null;
        PoolStatusReport.Result result = PoolStatusReport.compute(driver, poolName, limit, slices.getStore().list(),
                claims.getStore().list(), clock.instant());
        if (result.incomplete() && retries.merge(name, 1, Integer::sum) <= MAX_RETRIES) {
            LOG.debug("ResourcePoolStatusRequest {}: incomplete pools, looking again", name);
            return RETRY_DELAY;
        }
        retries.remove(name);
        request.getAdditionalProperties().put("status", result.status());
        try {
            client.genericKubernetesResources(REQUESTS).resource(request).updateStatus();
        } catch (KubernetesClientException e) {
            if (e.getCode() == 404) {
                return null;
            }
            throw e;
        }
        LOG.debug("ResourcePoolStatusRequest {}: status written", name);
        return null;
    }
}
