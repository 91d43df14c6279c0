package io.kdra.allocator;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeSelector;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import java.util.List;
import java.util.Map;

/**
 * Node selection with Kubernetes node-affinity semantics: terms are ORed, the requirements of a term are ANDed, a term
 * without requirements matches nothing, and {@code matchFields} supports only {@code metadata.name}.
 */
final class NodeSelectors {

    static final String NODE_NAME_FIELD = "metadata.name";

    private NodeSelectors() {}

    /** Upstream's NodeMatches: a node name, then allNodes, then a node selector; nothing set matches no node. */
    static boolean nodeMatches(Node node, String nodeName, boolean allNodes, NodeSelector selector)
            throws InvalidNodeSelectorException {
        if (nodeName != null) {
            return nodeName.equals(nameOf(node));
        }
        if (allNodes) {
            return true;
        }
        return selector != null && matches(selector, node);
    }

    static boolean matches(NodeSelector selector, Node node) throws InvalidNodeSelectorException {
        List<NodeSelectorTerm> terms = DeviceInfo.orEmpty(selector.getNodeSelectorTerms());
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
        List<NodeSelectorRequirement> expressions = DeviceInfo.orEmpty(term.getMatchExpressions());
        List<NodeSelectorRequirement> fields = DeviceInfo.orEmpty(term.getMatchFields());
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
        String value = labels.get(requirement.getKey());
        List<String> values = DeviceInfo.orEmpty(requirement.getValues());
        switch (requirement.getOperator()) {
            case "In":
                return value != null && values.contains(value);
            case "NotIn":
                return value == null || !values.contains(value);
            case "Exists":
                return value != null;
            case "DoesNotExist":
                return value == null;
            default:
                if (value == null) {
                    return false;
                }
                long labelNumber;
                try {
                    labelNumber = Long.parseLong(value);
                } catch (NumberFormatException e) {
                    return false;
                }
                long bound = Long.parseLong(values.get(0));
                return "Gt".equals(requirement.getOperator()) ? labelNumber > bound : labelNumber < bound;
        }
    }

    private static void validate(NodeSelectorTerm term) throws InvalidNodeSelectorException {
        for (NodeSelectorRequirement requirement : DeviceInfo.orEmpty(term.getMatchExpressions())) {
            validateLabelRequirement(requirement);
        }
        for (NodeSelectorRequirement requirement : DeviceInfo.orEmpty(term.getMatchFields())) {
            if (!NODE_NAME_FIELD.equals(requirement.getKey())) {
                throw new InvalidNodeSelectorException(
                        "\"" + requirement.getKey() + "\": not a valid field selector key");
            }
            String operator = requirement.getOperator();
            if (!"In".equals(operator) && !"NotIn".equals(operator)) {
                throw new InvalidNodeSelectorException("\"" + operator + "\": not a valid field selector operator");
            }
            if (DeviceInfo.orEmpty(requirement.getValues()).size() != 1) {
                throw new InvalidNodeSelectorException(
                        "must be only one value when `operator` is 'In' or 'NotIn' for node field selector");
            }
        }
    }

    private static void validateLabelRequirement(NodeSelectorRequirement requirement)
            throws InvalidNodeSelectorException {
        String operator = String.valueOf(requirement.getOperator());
        int values = DeviceInfo.orEmpty(requirement.getValues()).size();
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
    static final class InvalidNodeSelectorException extends Exception {
        InvalidNodeSelectorException(String message) {
            super(message);
        }
    }
}
