package io.kdra.cluster.scheduler;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Taint;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A node as the filters see it. A node whose Ready condition is not True gets the taint the node lifecycle controller
 * would give it ({@code node.kubernetes.io/not-ready} for False, {@code node.kubernetes.io/unreachable} for Unknown or
 * no condition, effect NoSchedule), so that NotReady nodes are filtered exactly as kube-scheduler filters them through
 * TaintToleration, and pods that tolerate those taints may still land there.
 *
 * @param taints the node's taints plus the readiness taint
 */
record NodeInfo(String name, Node node, Map<String, String> labels, List<Taint> taints, boolean unschedulable) {

    static final String NOT_READY_TAINT = "node.kubernetes.io/not-ready";
    static final String UNREACHABLE_TAINT = "node.kubernetes.io/unreachable";
    static final String UNSCHEDULABLE_TAINT = "node.kubernetes.io/unschedulable";

    static NodeInfo of(Node node) {
        List<Taint> taints = new ArrayList<>(node.getSpec() == null ? List.of()
                : Lists.orEmpty(node.getSpec().getTaints()));
        String readiness = readyStatus(node);
        if (!"True".equals(readiness)) {
            String key = "False".equals(readiness) ? NOT_READY_TAINT : UNREACHABLE_TAINT;
            if (taints.stream().noneMatch(taint -> key.equals(taint.getKey()) && "NoSchedule".equals(taint.getEffect()))) {
                taints.add(new Taint("NoSchedule", key, null, null));
            }
        }
        boolean unschedulable = node.getSpec() != null && Boolean.TRUE.equals(node.getSpec().getUnschedulable());
        Map<String, String> labels = node.getMetadata().getLabels();
        return new NodeInfo(node.getMetadata().getName(), node, labels == null ? Map.of() : Map.copyOf(labels),
                List.copyOf(taints), unschedulable);
    }

    /** Whether a change from {@code old} can change what the filters decide (heartbeats cannot). */
    boolean filtersDifferFrom(NodeInfo old) {
        return old == null || unschedulable != old.unschedulable || !labels.equals(old.labels)
                || !taints.equals(old.taints);
    }

    private static String readyStatus(Node node) {
        if (node.getStatus() == null) {
            return null;
        }
        for (NodeCondition condition : Lists.orEmpty(node.getStatus().getConditions())) {
            if ("Ready".equals(condition.getType())) {
                return condition.getStatus();
            }
        }
        return null;
    }
}
