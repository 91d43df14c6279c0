package io.kdra.cluster.controller;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.kdra.cluster.Timing;
import io.kdra.kube.client.Informers;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node health part of kube-controller-manager's node lifecycle controller ({@code pkg/controller/nodelifecycle}):
 * a node whose kubelet has neither renewed its Lease in {@code kube-node-lease} nor changed its Ready heartbeat for
 * {@link Timing#nodeMonitorGracePeriod()} gets its Ready, MemoryPressure, DiskPressure and PIDPressure conditions set
 * to Unknown ({@code NodeStatusUnknown}, "Kubelet stopped posting node status."); the node's taints follow its Ready
 * condition: Unknown → {@code node.kubernetes.io/unreachable} NoSchedule and NoExecute, False →
 * {@code node.kubernetes.io/not-ready} NoSchedule and NoExecute, True → neither. Each node is looked at again when
 * its grace period would end, not by polling. Pods on unreachable nodes are not evicted (the NoExecute taint is
 * there for a taint manager this controller does not have).
 */
public final class NodeLifecycleController extends InformerController<NodeLifecycleController, String> {

    static final String UNREACHABLE = "node.kubernetes.io/unreachable";
    static final String NOT_READY = "node.kubernetes.io/not-ready";
    static final String LEASE_NAMESPACE = "kube-node-lease";

    private static final Logger LOG = LoggerFactory.getLogger(NodeLifecycleController.class);
    private static final List<String> KUBELET_CONDITIONS = List.of("Ready", "MemoryPressure", "DiskPressure",
            "PIDPressure");

    private final Duration gracePeriod;
    private final Clock clock = Clock.systemUTC();
    private final SharedIndexInformer<Node> nodes;
    /** When this controller last heard from each node's kubelet (its own clock, as upstream's probeTimestamp). */
    private final Map<String, Instant> probes = new ConcurrentHashMap<>();
    private final Map<String, String> lastRenewTimes = new ConcurrentHashMap<>();
    private final Map<String, String> lastHeartbeats = new ConcurrentHashMap<>();

    /** A controller with informers of its own. */
    public NodeLifecycleController(KubernetesClient client, Timing timing) {
        this(new SharedInformers(client), true, timing);
    }

    /** A controller on shared informers, started and closed by their owner. */
    public NodeLifecycleController(SharedInformers informers, Timing timing) {
        this(informers, false, timing);
    }

    private NodeLifecycleController(SharedInformers informers, boolean ownsInformers, Timing timing) {
        super(informers, ownsInformers, "node-lifecycle-controller", 1);
        this.gracePeriod = timing.nodeMonitorGracePeriod();
        this.nodes = informers.informer(Node.class);
        nodes.addEventHandler(Informers.handler(
                node -> heardFrom(node.getMetadata().getName(), null, heartbeat(node)),
                node -> forget(node.getMetadata().getName())));
        informers.informer(Lease.class, LEASE_NAMESPACE).addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Lease lease) {
                heardFrom(lease.getMetadata().getName(), renewTime(lease), null);
            }

            @Override
            public void onUpdate(Lease oldLease, Lease newLease) {
                heardFrom(newLease.getMetadata().getName(), renewTime(newLease), null);
            }

            @Override
            public void onDelete(Lease lease, boolean finalStateUnknown) {
                // the node's own deletion cleans up; a lease alone going away changes nothing
            }
        });
    }

    private static String renewTime(Lease lease) {
        return lease.getSpec() == null || lease.getSpec().getRenewTime() == null ? null
                : lease.getSpec().getRenewTime().toString();
    }

    /** A deleted node's state goes with it. */
    private void forget(String node) {
        probes.remove(node);
        lastRenewTimes.remove(node);
        lastHeartbeats.remove(node);
    }

    private static String heartbeat(Node node) {
        NodeCondition ready = condition(node, "Ready");
        return ready == null ? null : ready.getLastHeartbeatTime();
    }

    /** A new lease renewal or Ready heartbeat, or the first sight of a node, counts as hearing from its kubelet. */
    private void heardFrom(String node, String renewTime, String heartbeat) {
        boolean fresh = !probes.containsKey(node);
        if (renewTime != null && !renewTime.equals(lastRenewTimes.put(node, renewTime))) {
            fresh = true;
        }
        if (heartbeat != null && !heartbeat.equals(lastHeartbeats.put(node, heartbeat))) {
            fresh = true;
        }
        if (fresh) {
            probes.put(node, clock.instant());
        }
        queue.add(node);
    }

    @Override
    Duration sync(String name) {
        Node node = nodes.getStore().getByKey(name);
        if (node == null) {
            return null;
        }
        Instant probe = probes.computeIfAbsent(name, n -> clock.instant());
        Instant deadline = probe.plus(gracePeriod);
        Instant now = clock.instant();
        if (!now.isBefore(deadline)) {
            node = markUnknown(node);
        }
        reconcileTaints(node);
        return now.isBefore(deadline) ? Duration.between(now, deadline) : null;
    }

    private Node markUnknown(Node node) {
        List<NodeCondition> conditions = new ArrayList<>(node.getStatus() == null || node.getStatus().getConditions()
                == null ? List.of() : node.getStatus().getConditions());
        String now = PodClaims.now();
        boolean changed = false;
        for (String type : KUBELET_CONDITIONS) {
            int index = -1;
            for (int i = 0; i < conditions.size(); i++) {
                if (type.equals(conditions.get(i).getType())) {
                    index = i;
                }
            }
            if (index < 0) {
                conditions.add(new NodeConditionBuilder().withType(type).withStatus("Unknown")
                        .withReason("NodeStatusNeverUpdated").withMessage("Kubelet never posted node status.")
                        .withLastHeartbeatTime(node.getMetadata().getCreationTimestamp())
                        .withLastTransitionTime(now).build());
                changed = true;
            } else if (!"Unknown".equals(conditions.get(index).getStatus())) {
                conditions.set(index, new NodeConditionBuilder(conditions.get(index)).withStatus("Unknown")
                        .withReason("NodeStatusUnknown").withMessage("Kubelet stopped posting node status.")
                        .withLastTransitionTime(now).build());
                changed = true;
            }
        }
        if (!changed) {
            return node;
        }
        LOG.info("node {} stopped posting its status: Ready is Unknown", node.getMetadata().getName());
        Node updated = new NodeBuilder(node).editOrNewStatus().withConditions(conditions).endStatus().build();
        return client.nodes().resource(updated).updateStatus();
    }

    /** Sets the not-ready or unreachable taints the Ready condition calls for, and removes the others. */
    private void reconcileTaints(Node node) {
        NodeCondition ready = condition(node, "Ready");
        String wanted = ready == null || "True".equals(ready.getStatus()) ? null
                : "Unknown".equals(ready.getStatus()) ? UNREACHABLE : NOT_READY;
        List<Taint> current = node.getSpec() == null || node.getSpec().getTaints() == null ? List.of()
                : node.getSpec().getTaints();
        List<Taint> taints = new ArrayList<>();
        for (Taint taint : current) {
            boolean managed = UNREACHABLE.equals(taint.getKey()) || NOT_READY.equals(taint.getKey());
            if (!managed || taint.getKey().equals(wanted)) {
                taints.add(taint);
            }
        }
        if (wanted != null) {
            for (String effect : List.of("NoSchedule", "NoExecute")) {
                boolean present = taints.stream().anyMatch(t -> wanted.equals(t.getKey())
                        && effect.equals(t.getEffect()));
                if (!present) {
                    taints.add(new TaintBuilder().withKey(wanted).withEffect(effect)
                            .withTimeAdded("NoExecute".equals(effect) ? PodClaims.now() : null).build());
                }
            }
        }
        if (Objects.equals(taints, current)) {
            return;
        }
        LOG.debug("node {} taints {}", node.getMetadata().getName(), taints);
        client.nodes().resource(new NodeBuilder(node).editOrNewSpec().withTaints(taints).endSpec().build()).update();
    }

    private static NodeCondition condition(Node node, String type) {
        if (node.getStatus() == null || node.getStatus().getConditions() == null) {
            return null;
        }
        return node.getStatus().getConditions().stream().filter(c -> type.equals(c.getType())).findFirst()
                .orElse(null);
    }
}
