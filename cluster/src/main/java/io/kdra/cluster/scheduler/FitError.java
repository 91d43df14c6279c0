package io.kdra.cluster.scheduler;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * kube-scheduler's message for a pod that fits no node: the filter reasons counted per node and sorted, then what
 * the PostFilter plugins said (DynamicResources, then DefaultPreemption, which never helps here because every filter
 * of this scheduler rejects as unresolvable). Example: {@code 0/3 nodes are available: 1 node(s) didn't match Pod's
 * node affinity/selector, 2 cannot allocate all claims. still not schedulable, preemption: 0/3 nodes are available: 3
 * Preemption is not helpful for scheduling.}
 */
final class FitError {

    static final String NO_NEW_CLAIMS = "no new claims to deallocate";
    static final String STILL_NOT_SCHEDULABLE = "still not schedulable";
    static final String DEALLOCATED = "deallocation of ResourceClaim completed";

    private FitError() {}

    /** When a filter rejected every node: {@code reasons} counts the nodes per reason. */
    static String message(int nodes, Map<String, Integer> reasons, String draPostFilter) {
        List<String> counted = new ArrayList<>(reasons.size());
        reasons.forEach((reason, count) -> counted.add(count + " " + reason));
        Collections.sort(counted);
        return available(nodes) + " " + String.join(", ", counted) + ". " + postFilter(nodes, draPostFilter);
    }

    /** When PreFilter rejected the pod for all nodes at once. */
    static String preFilter(int nodes, String reason, String draPostFilter) {
        return available(nodes) + " " + reason + ". " + postFilter(nodes, draPostFilter);
    }

    private static String available(int nodes) {
        return "0/" + nodes + " nodes are available:";
    }

    private static String postFilter(int nodes, String draPostFilter) {
        return draPostFilter + ", preemption: " + available(nodes) + " " + nodes
                + " Preemption is not helpful for scheduling.";
    }
}
