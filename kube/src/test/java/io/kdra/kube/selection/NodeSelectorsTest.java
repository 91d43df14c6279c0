package io.kdra.kube.selection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeSelector;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeSelectorBuilder;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class NodeSelectorsTest {

    private static final Node NODE = node("node-1", "zone", "a", "gpus", "4");

    @ParameterizedTest(name = "{0} {1} {2} -> {3}")
    @CsvSource({
        "zone, In, a, true",
        "zone, In, b, false",
        "zone, NotIn, b, true",
        "missing, NotIn, b, true",
        "zone, Exists, , true",
        "missing, Exists, , false",
        "missing, DoesNotExist, , true",
        "gpus, Gt, 3, true",
        "gpus, Gt, 4, false",
        "gpus, Lt, 5, true",
        "zone, Gt, 1, false",
    })
    void labelRequirements(String key, String operator, String value, boolean matches) throws Exception {
        NodeSelector selector = value == null ? labelSelector(key, operator) : labelSelector(key, operator, value);

        assertThat(NodeSelectors.matches(selector, NODE)).isEqualTo(matches);
    }

    @ParameterizedTest(name = "{0} {1} -> {2}")
    @CsvSource({"In, node-1, true", "In, node-2, false", "NotIn, node-2, true"})
    void fieldRequirements(String operator, String value, boolean matches) throws Exception {
        NodeSelector selector = new NodeSelectorBuilder().addNewNodeSelectorTerm().addNewMatchField()
                .withKey("metadata.name").withOperator(operator).withValues(value).endMatchField()
                .endNodeSelectorTerm().build();

        assertThat(NodeSelectors.matches(selector, NODE)).isEqualTo(matches);
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @CsvSource(delimiter = '|', value = {
        "zone|In||values: Required value: for 'in', 'notin' operators, values set can't be empty",
        "zone|Exists|a|values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
        "gpus|Gt|x|values[0]: Invalid value: \"x\": for 'Gt', 'Lt' operators, the value must be an integer",
        "zone|Like|a|\"Like\" is not a valid label selector operator",
    })
    void invalidRequirementsAreNamed(String key, String operator, String value, String message) {
        NodeSelector selector = value == null ? labelSelector(key, operator) : labelSelector(key, operator, value);

        assertThatThrownBy(() -> NodeSelectors.matches(selector, NODE)).hasMessage(message);
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(delimiter = '|', value = {
        "metadata.uid|In|\"metadata.uid\": not a valid field selector key",
        "metadata.name|Exists|\"Exists\": not a valid field selector operator",
    })
    void invalidFieldRequirementsAreNamed(String key, String operator, String message) {
        NodeSelector selector = new NodeSelectorBuilder().addNewNodeSelectorTerm().addNewMatchField()
                .withKey(key).withOperator(operator).withValues("x").endMatchField().endNodeSelectorTerm().build();

        assertThatThrownBy(() -> NodeSelectors.matches(selector, NODE)).hasMessage(message);
    }

    @org.junit.jupiter.api.Test
    void anEmptyTermMatchesNothingButAnotherTermMay() throws Exception {
        NodeSelector selector = new NodeSelectorBuilder().addNewNodeSelectorTerm().endNodeSelectorTerm().build();

        assertThat(NodeSelectors.matches(selector, NODE)).isFalse();
        selector.getNodeSelectorTerms().add(labelSelector("zone", "In", "a").getNodeSelectorTerms().get(0));
        assertThat(NodeSelectors.matches(selector, NODE)).isTrue();
    }

    private static Node node(String name, String... labels) {
        Map<String, String> labelMap = new LinkedHashMap<>();
        for (int i = 0; i < labels.length; i += 2) {
            labelMap.put(labels[i], labels[i + 1]);
        }
        return new NodeBuilder().withNewMetadata().withName(name).withLabels(labelMap).endMetadata().build();
    }

    private static NodeSelector labelSelector(String key, String operator, String... values) {
        return new NodeSelectorBuilder().addNewNodeSelectorTerm().addNewMatchExpression()
                .withKey(key).withOperator(operator).withValues(values)
                .endMatchExpression().endNodeSelectorTerm().build();
    }
}
