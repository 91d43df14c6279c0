package io.kdra.framework.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Ginkgo's label filter language, with the filters of upstream's DRA jobs (reference §6.2). */
class LabelFilterTest {

    private static final List<String> PLAIN = List.of("sig-node", "DRA", "Feature:DynamicResourceAllocation");
    private static final List<String> ALPHA = List.of("sig-node", "DRA", "Feature:DynamicResourceAllocation",
            "FeatureGate:DRAResourcePoolStatus", "Alpha", "Feature:OffByDefault");
    private static final List<String> SLOW = List.of("sig-node", "DRA", "Feature:DynamicResourceAllocation",
            "KubeletMinVersion:1.33", "Slow");
    private static final List<String> HEALTH = List.of("sig-node", "DRA", "Feature:DynamicResourceAllocation",
            "FeatureGate:ResourceHealthStatus", "KubeletMinVersion:1.36");
    private static final List<String> CRUD = List.of("sig-node", "DRA", "Conformance");

    @Test
    void thePresubmitJobsFilter() {
        LabelFilter filter = LabelFilter.parse("DRA && Feature: isSubsetOf { OffByDefault, DynamicResourceAllocation }"
                + " && !FeatureGate:ResourceHealthStatus && !Alpha && !Flaky && !Slow");

        assertThat(filter.test(PLAIN)).isTrue();
        assertThat(filter.test(CRUD)).isTrue();
        assertThat(filter.test(ALPHA)).isFalse();
        assertThat(filter.test(SLOW)).isFalse();
        assertThat(filter.test(HEALTH)).isFalse();
    }

    @Test
    void theSkewJobsFilter() {
        LabelFilter filter = LabelFilter.parse("DRA && ! KubeletMinVersion: containsAny { 1.34, 1.35, 1.36 }"
                + " && Feature: containsAny DynamicResourceAllocation");

        assertThat(filter.test(PLAIN)).isTrue();
        assertThat(filter.test(SLOW)).isTrue();
        assertThat(filter.test(HEALTH)).isFalse();
        assertThat(filter.test(CRUD)).isFalse();
    }

    @Test
    void setOperations() {
        assertThat(LabelFilter.parse("Feature: isEmpty").test(CRUD)).isTrue();
        assertThat(LabelFilter.parse("Feature: isEmpty").test(PLAIN)).isFalse();
        assertThat(LabelFilter.parse("Feature: containsAll {OffByDefault, DynamicResourceAllocation}").test(ALPHA))
                .isTrue();
        assertThat(LabelFilter.parse("Feature: consistsOf {DynamicResourceAllocation}").test(ALPHA)).isFalse();
        assertThat(LabelFilter.parse("Feature: consistsOf {dynamicresourceallocation}").test(PLAIN)).isTrue();
        assertThat(LabelFilter.parse("Feature: isSubsetOf DynamicResourceAllocation").test(CRUD)).isTrue();
    }

    @Test
    void labelsIgnoreCaseRegularExpressionsDoNot() {
        assertThat(LabelFilter.parse("dra").test(PLAIN)).isTrue();
        assertThat(LabelFilter.parse("/^FeatureGate:DRA/").test(ALPHA)).isTrue();
        assertThat(LabelFilter.parse("/^featuregate:dra/").test(ALPHA)).isFalse();
    }

    @Test
    void precedenceAndGroups() {
        assertThat(LabelFilter.parse("Slow || Alpha && Conformance").test(SLOW)).isTrue();
        assertThat(LabelFilter.parse("(Slow || Alpha) && Conformance").test(SLOW)).isFalse();
        assertThat(LabelFilter.parse("!Slow && DRA").test(PLAIN)).isTrue();
        assertThat(LabelFilter.parse("!(Slow, Alpha)").test(ALPHA)).isFalse();
        assertThat(LabelFilter.parse("").test(List.of())).isTrue();
    }

    @Test
    void badFiltersNameTheProblemAndWhere() {
        assertThatThrownBy(() -> LabelFilter.parse("DRA & Slow")).hasMessageContaining("did you mean '&&'")
                .hasMessageContaining("position 5");
        assertThatThrownBy(() -> LabelFilter.parse("(DRA")).hasMessageContaining("'(' without a matching ')'");
        assertThatThrownBy(() -> LabelFilter.parse("DRA)")).hasMessageContaining("')' without a matching '('");
        assertThatThrownBy(() -> LabelFilter.parse("DRA &&")).hasMessageContaining("right-hand operand");
        assertThatThrownBy(() -> LabelFilter.parse("&& DRA")).hasMessageContaining("left-hand operand");
        assertThatThrownBy(() -> LabelFilter.parse("Feature: sameAs x")).hasMessageContaining("unknown set operation");
        assertThatThrownBy(() -> LabelFilter.parse("Feature: containsAny")).hasMessageContaining("needs an argument");
        assertThatThrownBy(() -> LabelFilter.parse("Feature: containsAny {a")).hasMessageContaining("'}'");
        assertThatThrownBy(() -> LabelFilter.parse("/(/")).hasMessageContaining("invalid regular expression");
        assertThatThrownBy(() -> LabelFilter.parse("Feature containsAny x")).hasMessageContaining("without its key");
        assertThatThrownBy(() -> LabelFilter.parse("()")).hasMessageContaining("empty '()' group");
    }
}
