package io.kdra.cluster.controller;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.kdra.cluster.Timing;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * kube-controller-manager's pod garbage collector ({@code pkg/controller/podgc}), the parts a cluster of simulated
 * nodes needs: a pod bound to a node that no longer exists is marked Failed with the condition
 * {@code DisruptionTarget=True} (reason {@code DeletionByPodGC}, "PodGC: node no longer exists") and force-deleted;
 * a deleted pod that was never scheduled is force-deleted. It runs every {@link Timing#podGcPeriod()} and at once
 * when a node is deleted. A node missing from the informer is confirmed with the API server before its pods go, as
 * upstream's quarantine guards against a node the informer has not seen yet. The terminated-pod threshold is not
 * ported.
 */
public final class PodGarbageCollector extends InformerController<PodGarbageCollector, PodGarbageCollector.Pass> {

    private static final Logger LOG = LoggerFactory.getLogger(PodGarbageCollector.class);
    private static final String FIELD_MANAGER = "pod-garbage-collector";

    /** The periodic pass reschedules itself; a node deletion adds a pass of its own, so one chain of passes runs. */
    enum Pass { PERIODIC, NODE_DELETED }

    private final Duration period;
    private final SharedIndexInformer<Pod> pods;
    private final SharedIndexInformer<Node> nodes;

    /** A collector with informers of its own. */
    public PodGarbageCollector(KubernetesClient client, Timing timing) {
        this(new SharedInformers(client), true, timing);
    }

    /** A collector on shared informers, started and closed by their owner. */
    public PodGarbageCollector(SharedInformers informers, Timing timing) {
        this(informers, false, timing);
    }

    private PodGarbageCollector(SharedInformers informers, boolean ownsInformers, Timing timing) {
        super(informers, ownsInformers, "pod-garbage-collector", 1);
        this.period = timing.podGcPeriod();
        this.pods = informers.informer(Pod.class);
        this.nodes = informers.informer(Node.class);
        nodes.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Node node) {
                // nothing to collect
            }

            @Override
            public void onUpdate(Node oldNode, Node newNode) {
                // nothing to collect
            }

            @Override
            public void onDelete(Node node, boolean finalStateUnknown) {
                queue.add(Pass.NODE_DELETED);
            }
        });
        // the first periodic pass runs once the workers start, after the informers have listed
        queue.add(Pass.PERIODIC);
    }

    @Override
    Duration sync(Pass pass) {
        Map<String, Boolean> nodeExists = new LinkedHashMap<>();
        for (Pod pod : pods.getStore().list()) {
            if (!PodClaims.scheduled(pod)) {
                if (PodClaims.deleted(pod)) {
                    forceDelete(pod);
                }
                continue;
            }
            String node = pod.getSpec().getNodeName();
            boolean exists = nodeExists.computeIfAbsent(node,
                    n -> nodes.getStore().getByKey(n) != null || client.nodes().withName(n).get() != null);
            if (!exists) {
                LOG.info("pod {}/{} is on node {} which no longer exists: deleting it", pod.getMetadata().getNamespace(),
                        pod.getMetadata().getName(), node);
                markFailedAndDelete(pod);
            }
        }
        return pass == Pass.PERIODIC ? period : null;
    }

    private void markFailedAndDelete(Pod pod) {
        if (!PodClaims.isTerminal(pod)) {
            List<PodCondition> conditions = PodClaims.withCondition(pod.getStatus().getConditions(),
                    "DisruptionTarget", "True", "DeletionByPodGC", "PodGC: node no longer exists");
            Map<String, Object> status = new LinkedHashMap<>();
            status.put("phase", "Failed");
            if (conditions != null) {
                status.put("conditions", conditions.stream().filter(c -> "DisruptionTarget".equals(c.getType()))
                        .toList());
            }
            String patch = client.getKubernetesSerialization().asJson(Map.of("status", status));
            try {
                client.pods().inNamespace(pod.getMetadata().getNamespace()).withName(pod.getMetadata().getName())
                        .subresource("status").patch(new PatchContext.Builder()
                                .withPatchType(PatchType.STRATEGIC_MERGE).withFieldManager(FIELD_MANAGER).build(),
                                patch);
            } catch (KubernetesClientException e) {
                if (e.getCode() == 404) {
                    return;
                }
                throw e;
            }
        }
        forceDelete(pod);
    }

    private void forceDelete(Pod pod) {
        client.pods().inNamespace(pod.getMetadata().getNamespace()).withName(pod.getMetadata().getName())
                .withGracePeriod(0).delete();
    }
}
