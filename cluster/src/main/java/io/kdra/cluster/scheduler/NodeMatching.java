package io.kdra.cluster.scheduler;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeSelector;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.Toleration;
import java.util.List;
import java.util.Map;

/**
 * Node-affinity selector matching and core taint/toleration matching as kube-scheduler's component-helpers do them.
 * Stand-in until the shared {@code io.kdra.kube} NodeSelectors and pod Tolerations land (issue 9 part A); then this
 * class goes and its callers use those.
 */
final class NodeMatching {

    private NodeMatching() {}

    /** Terms ORed, requirements of a term ANDed; a term without requirements or with a bad one matches nothing. */
    static boolean matches(NodeSelector selector, Node node) {
        for (NodeSelectorTerm term : orEmpty(selector.getNodeSelectorTerms())) {
            if (termMatches(term, node)) {
                return true;
            }
        }
        return false;
    }

    private static boolean termMatches(NodeSelectorTerm term, Node node) {
        List<NodeSelectorRequirement> expressions = orEmpty(term.getMatchExpressions());
        List<NodeSelectorRequirement> fields = orEmpty(term.getMatchFields());
        if (expressions.isEmpty() && fields.isEmpty()) {
            return false;
        }
        Map<String, String> labels = labelsOf(node);
        for (NodeSelectorRequirement requirement : expressions) {
            if (!requirementMatches(requirement, labels.get(requirement.getKey()))) {
                return false;
            }
        }
        for (NodeSelectorRequirement requirement : fields) {
            if (!"metadata.name".equals(requirement.getKey()) || orEmpty(requirement.getValues()).size() != 1
                    || !("In".equals(requirement.getOperator()) || "NotIn".equals(requirement.getOperator()))) {
                return false;
            }
            if (!requirementMatches(requirement, node.getMetadata().getName())) {
                return false;
            }
        }
        return true;
    }

    private static boolean requirementMatches(NodeSelectorRequirement requirement, String value) {
        List<String> values = orEmpty(requirement.getValues());
        switch (String.valueOf(requirement.getOperator())) {
            case "In":
                return value != null && values.contains(value);
            case "NotIn":
                return value == null || !values.contains(value);
            case "Exists":
                return value != null;
            case "DoesNotExist":
                return value == null;
            case "Gt", "Lt":
                if (value == null || values.size() != 1) {
                    return false;
                }
                try {
                    long actual = Long.parseLong(value);
                    long bound = Long.parseLong(values.get(0));
                    return "Gt".equals(requirement.getOperator()) ? actual > bound : actual < bound;
                } catch (NumberFormatException e) {
                    return false;
                }
            default:
                return false;
        }
    }

    /** Upstream's ToleratesTaint: effect empty or equal, key empty (any) or equal, Exists or an equal value. */
    static boolean tolerates(Toleration toleration, Taint taint) {
        if (!isEmpty(toleration.getEffect()) && !toleration.getEffect().equals(taint.getEffect())) {
            return false;
        }
        if (!isEmpty(toleration.getKey()) && !toleration.getKey().equals(taint.getKey())) {
            return false;
        }
        String operator = isEmpty(toleration.getOperator()) ? "Equal" : toleration.getOperator();
        return switch (operator) {
            case "Exists" -> true;
            case "Equal" -> emptyIfNull(toleration.getValue()).equals(emptyIfNull(taint.getValue()));
            default -> false;
        };
    }

    static boolean toleratedBy(Taint taint, List<Toleration> tolerations) {
        for (Toleration toleration : tolerations) {
            if (tolerates(toleration, taint)) {
                return true;
            }
        }
        return false;
    }

    static Map<String, String> labelsOf(Node node) {
        Map<String, String> labels = node.getMetadata().getLabels();
        return labels == null ? Map.of() : labels;
    }

    static <T> List<T> orEmpty(List<T> list) {
        return list == null ? List.of() : list;
    }

    private static boolean isEmpty(String value) {
        return value == null || value.isEmpty();
    }

    private static String emptyIfNull(String value) {
        return value == null ? "" : value;
    }
}
