package io.kdra.e2e;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.client.dsl.NonNamespaceOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.kdra.framework.Framework;
import io.kdra.framework.Waits;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.awaitility.core.ConditionTimeoutException;

/**
 * ResourcePoolStatusRequests (resource.k8s.io/v1alpha3) as the pool status specs use them: the typed Go client's
 * {@code ResourceV1alpha3().ResourcePoolStatusRequests()}, which fabric8 has no model for, and upstream's protocol of
 * a fresh request per attempt (created, its status awaited for up to 15 s — no longer once it is complete —,
 * deleted), retried every 2 s for a minute.
 */
final class PoolStatusRequests {

    static final ResourceDefinitionContext CONTEXT = new ResourceDefinitionContext.Builder()
            .withGroup("resource.k8s.io").withVersion("v1alpha3").withKind("ResourcePoolStatusRequest")
            .withPlural("resourcepoolstatusrequests").withNamespaced(false).build();
    private static final Duration ATTEMPT = Duration.ofSeconds(15);
    private static final Duration RETRIES = Duration.ofSeconds(60);

    private PoolStatusRequests() {
    }

    static NonNamespaceOperation<GenericKubernetesResource, ?, Resource<GenericKubernetesResource>> client(
            Framework f) {
        return f.client().genericKubernetesResources(CONTEXT);
    }

    /** A request for the driver's pools, optionally of one pool and with a limit. */
    static GenericKubernetesResource request(String generateName, String driver, String poolName, Integer limit) {
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("driver", driver);
        if (poolName != null) {
            spec.put("poolName", poolName);
        }
        if (limit != null) {
            spec.put("limit", limit);
        }
        return new GenericKubernetesResourceBuilder().withApiVersion("resource.k8s.io/v1alpha3")
                .withKind("ResourcePoolStatusRequest").withNewMetadata().withGenerateName(generateName).endMetadata()
                .withAdditionalProperties(Map.of("spec", spec)).build();
    }

    /** Creates the request and deletes it after the spec. */
    static GenericKubernetesResource create(Framework f, GenericKubernetesResource request) {
        GenericKubernetesResource created = client(f).resource(request).create();
        String name = created.getMetadata().getName();
        f.cleanup("delete ResourcePoolStatusRequest " + name, () -> client(f).withName(name).delete());
        return created;
    }

    /** The status of the stored request, or null. */
    @SuppressWarnings("unchecked")
    static Map<String, Object> status(Framework f, String name) {
        GenericKubernetesResource current = client(f).withName(name).get();
        return current == null ? null : (Map<String, Object>) current.getAdditionalProperties().get("status");
    }

    /**
     * Upstream's outer retry: each attempt creates the request, checks its status within 15 s and deletes it again;
     * the check throws (an assertion) until the status is as expected.
     */
    static void eventually(Framework f, GenericKubernetesResource request, Consumer<Map<String, Object>> check) {
        Waits.until("a ResourcePoolStatusRequest with the expected status", RETRIES)
                .pollInterval(Duration.ofSeconds(2)).ignoreExceptions()
                .untilAsserted(() -> attempt(f, request, check));
    }

    private static void attempt(Framework f, GenericKubernetesResource request, Consumer<Map<String, Object>> check) {
        String name = client(f).resource(request).create().getMetadata().getName();
        try {
            // the controller writes the status once: once it is complete, waiting longer changes nothing, and a
            // status that is not as expected ends this attempt at once
            Waits.until("status of ResourcePoolStatusRequest " + name, ATTEMPT).ignoreExceptions()
                    .until(() -> {
                        Map<String, Object> status = status(f, name);
                        if (status == null || !complete(status)) {
                            check.accept(status);
                        }
                        return true;
                    });
            check.accept(status(f, name));
        } catch (ConditionTimeoutException e) {
            throw new AssertionError(e.getMessage(), e.getCause());
        } finally {
            client(f).withName(name).delete();
        }
    }

    @SuppressWarnings("unchecked")
    static List<Map<String, Object>> pools(Map<String, Object> status) {
        Object pools = status.get("pools");
        return pools == null ? List.of() : (List<Map<String, Object>>) pools;
    }

    /** Whether the status has the condition {@code Complete=True}. */
    @SuppressWarnings("unchecked")
    static boolean complete(Map<String, Object> status) {
        Object conditions = status.get("conditions");
        return conditions instanceof List<?> list && list.stream().map(c -> (Map<String, Object>) c)
                .anyMatch(c -> "Complete".equals(c.get("type")) && "True".equals(c.get("status")));
    }
}
