package io.kdra.kube.selection;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeSelector;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

/**
 * Node selection with Kubernetes node-affinity semantics: terms are ORed, the requirements of a term are ANDed, a term
 * without requirements matches nothing, and {@code matchFields} supports only {@code metadata.name}.
 */
public final class NodeSelectors {

    /** The one field a node selector's {@code matchFields} may name. */
    public static final String NODE_NAME_FIELD = "metadata.name";

    private NodeSelectors() {}

    /** Upstream's NodeMatches: a node name, then allNodes, then a node selector; nothing set matches no node. */
    public static boolean nodeMatches(Node node, String nodeName, boolean allNodes, NodeSelector selector)
            throws InvalidNodeSelectorException {
        if (nodeName != null) {
            return nodeName.equals(nameOf(node));
        }
        if (allNodes) {
            return true;
        }
        return selector != null && matches(selector, node);
    }

    /**
     * Whether the node meets the selector (required node affinity): a term matches when all its requirements hold.
     *
     * @throws InvalidNodeSelectorException when a requirement is one Kubernetes would not accept
     */
    public static boolean matches(NodeSelector selector, Node node) throws InvalidNodeSelectorException {
        List<NodeSelectorTerm> terms = orEmpty(selector.getNodeSelectorTerms());
        for (NodeSelectorTerm term : terms) {
            validate(term);
        }
        for (NodeSelectorTerm term : terms) {
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
        Map<String, String> labels = node.getMetadata() == null || node.getMetadata().getLabels() == null
                ? Map.of() : node.getMetadata().getLabels();
        for (NodeSelectorRequirement requirement : expressions) {
            if (!labelMatches(requirement, labels)) {
                return false;
            }
        }
        for (NodeSelectorRequirement requirement : fields) {
            boolean in = requirement.getValues().get(0).equals(nameOf(node));
            if (in != "In".equals(requirement.getOperator())) {
                return false;
            }
        }
        return true;
    }

    private static boolean labelMatches(NodeSelectorRequirement requirement, Map<String, String> labels) {
        LabelSelector.Operator operator = switch (requirement.getOperator()) {
            case "In" -> LabelSelector.Operator.IN;
            case "NotIn" -> LabelSelector.Operator.NOT_IN;
            case "Exists" -> LabelSelector.Operator.EXISTS;
            case "DoesNotExist" -> LabelSelector.Operator.DOES_NOT_EXIST;
            case "Gt" -> LabelSelector.Operator.GREATER_THAN;
            default -> LabelSelector.Operator.LESS_THAN;
        };
        return new LabelSelector.Requirement(requirement.getKey(), operator,
                new LinkedHashSet<>(orEmpty(requirement.getValues()))).matches(labels);
    }

    private static <T> List<T> orEmpty(List<T> list) {
        return list == null ? List.of() : list;
    }

    private static void validate(NodeSelectorTerm term) throws InvalidNodeSelectorException {
        for (NodeSelectorRequirement requirement : orEmpty(term.getMatchExpressions())) {
            validateLabelRequirement(requirement);
        }
        for (NodeSelectorRequirement requirement : orEmpty(term.getMatchFields())) {
            if (!NODE_NAME_FIELD.equals(requirement.getKey())) {
                throw new InvalidNodeSelectorException(
                        "\"" + requirement.getKey() + "\": not a valid field selector key");
            }
            String operator = requirement.getOperator();
            if (!"In".equals(operator) && !"NotIn".equals(operator)) {
                throw new InvalidNodeSelectorException("\"" + operator + "\": not a valid field selector operator");
            }
            if (orEmpty(requirement.getValues()).size() != 1) {
                throw new InvalidNodeSelectorException(
                        "must be only one value when `operator` is 'In' or 'NotIn' for node field selector");
            }
        }
    }

    private static void validateLabelRequirement(NodeSelectorRequirement requirement)
            throws InvalidNodeSelectorException {
        String operator = String.valueOf(requirement.getOperator());
        int values = orEmpty(requirement.getValues()).size();
        switch (operator) {
            case "In", "NotIn" -> {
                if (values == 0) {
                    throw new InvalidNodeSelectorException(
                            "values: Required value: for 'in', 'notin' operators, values set can't be empty");
                }
            }
            case "Exists", "DoesNotExist" -> {
                if (values != 0) {
                    throw new InvalidNodeSelectorException(
                            "values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'");
                }
            }
            case "Gt", "Lt" -> {
                if (values != 1) {
                    throw new InvalidNodeSelectorException(
                            "values: Invalid value: for 'Gt', 'Lt' operators, exactly one value is required");
                }
                try {
                    Long.parseLong(requirement.getValues().get(0));
                } catch (NumberFormatException e) {
                    throw new InvalidNodeSelectorException(
                            "values[0]: Invalid value: \"" + requirement.getValues().get(0)
                                    + "\": for 'Gt', 'Lt' operators, the value must be an integer");
                }
            }
            default -> throw new InvalidNodeSelectorException(
                    "\"" + operator + "\" is not a valid label selector operator");
        }
    }

    private static String nameOf(Node node) {
        return node.getMetadata() == null ? null : node.getMetadata().getName();
    }

    /** A node selector that Kubernetes would not accept. */
    public static final class InvalidNodeSelectorException extends Exception {
        public InvalidNodeSelectorException(String message) {
            super(message);
        }
    }
}
