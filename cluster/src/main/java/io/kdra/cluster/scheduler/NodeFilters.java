package io.kdra.cluster.scheduler;

import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.NodeSelector;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.Toleration;
import io.kdra.kube.selection.NodeSelectors;
import io.kdra.kube.taint.PodTolerations;
import java.util.List;
import java.util.Map;

/**
 * kube-scheduler's node filter plugins that do not look at resources, in the order of the default profile:
 * NodeUnschedulable, TaintToleration, NodeAffinity. Each returns upstream's reason text when it rejects a node.
 * (The NodeName plugin is left out: a pod with {@code spec.nodeName} never reaches this scheduler.)
 */
final class NodeFilters {

    static final String UNSCHEDULABLE = "node(s) were unschedulable";
    static final String UNTOLERATED_TAINT = "node(s) had untolerated taint(s)";
    static final String AFFINITY_MISMATCH = "node(s) didn't match Pod's node affinity/selector";

    private static final Taint UNSCHEDULABLE_TAINT = new Taint("NoSchedule", NodeInfo.UNSCHEDULABLE_TAINT, null, null);

    private NodeFilters() {}

    /** @return why the node does not fit the pod, or null when it does */
    static String reject(Pod pod, NodeInfo node) {
        List<Toleration> tolerations = pod.getSpec().getTolerations();
        if (node.unschedulable() && !PodTolerations.tolerated(tolerations, UNSCHEDULABLE_TAINT)) {
            return UNSCHEDULABLE;
        }
        if (PodTolerations.firstUntolerated(node.taints(), tolerations, PodTolerations.SCHEDULING_EFFECTS)
                .isPresent()) {
            return UNTOLERATED_TAINT;
        }
        return matchesAffinity(pod, node) ? null : AFFINITY_MISMATCH;
    }

    private static boolean matchesAffinity(Pod pod, NodeInfo node) {
        Map<String, String> nodeSelector = pod.getSpec().getNodeSelector();
        if (nodeSelector != null) {
            for (Map.Entry<String, String> entry : nodeSelector.entrySet()) {
                if (!entry.getValue().equals(node.labels().get(entry.getKey()))) {
                    return false;
                }
            }
        }
        Affinity affinity = pod.getSpec().getAffinity();
        NodeSelector required = affinity == null || affinity.getNodeAffinity() == null ? null
                : affinity.getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution();
        return required == null || matches(required, node);
    }

    /** A selector the API server would not have accepted matches no node, as upstream's parse error rejects it. */
    static boolean matches(NodeSelector selector, NodeInfo node) {
        try {
            return NodeSelectors.matches(selector, node.node());
        } catch (NodeSelectors.InvalidNodeSelectorException e) {
            return false;
        }
    }
}
