package io.kdra.kube.selection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LabelSelectorTest {

    private static final Map<String, String> LABELS = Map.of("app", "web", "tier", "front");

    @Test
    void parsesTheQuerySyntax() {
        assertThat(LabelSelector.parse("app=web,tier in (front, back),!absent").matches(LABELS)).isTrue();
        assertThat(LabelSelector.parse("app==web,tier notin (front)").matches(LABELS)).isFalse();
        assertThat(LabelSelector.parse("app!=db,tier").matches(LABELS)).isTrue();
        assertThat(LabelSelector.parse(" ").isEverything()).isTrue();
        assertThatThrownBy(() -> LabelSelector.parse("app in front"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("unable to parse requirement: found 'front', expected: '(' (selector \"app in front\")");
    }

    @Test
    void readsAMetav1LabelSelector() {
        var selector = new LabelSelectorBuilder().withMatchLabels(Map.of("app", "web")).addNewMatchExpression()
                .withKey("tier").withOperator("In").withValues("front").endMatchExpression().build();

        assertThat(LabelSelector.of(selector).matches(LABELS)).isTrue();
        assertThat(LabelSelector.of(new LabelSelectorBuilder().build()).matches(LABELS)).isTrue();
        assertThat(LabelSelector.of((io.fabric8.kubernetes.api.model.LabelSelector) null).matches(LABELS)).isFalse();
        assertThatThrownBy(() -> LabelSelector.of(new LabelSelectorBuilder().addNewMatchExpression().withKey("a")
                .withOperator("Gt").withValues("1").endMatchExpression().build()))
                .hasMessage("\"Gt\" is not a valid label selector operator");
    }

    @Test
    void numericComparisonsForNodeAffinity() {
        var greater = new LabelSelector.Requirement("gpus", LabelSelector.Operator.GREATER_THAN, java.util.Set.of("3"));

        assertThat(greater.matches(Map.of("gpus", "4"))).isTrue();
        assertThat(greater.matches(Map.of("gpus", "3"))).isFalse();
        assertThat(greater.matches(Map.of("gpus", "many"))).isFalse();
        assertThat(greater.matches(Map.of())).isFalse();
    }
}
