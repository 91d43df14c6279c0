package io.kdra.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class KubernetesVersionTest {

    @Test
    void parsesMajorDotMinorAndPrintsItBack() {
        KubernetesVersion version = KubernetesVersion.parse("1.34");

        assertThat(version).isEqualTo(new KubernetesVersion(1, 34));
        assertThat(version).hasToString("1.34");
        assertThat(KubernetesVersion.parse(" v1.9 ")).isEqualTo(new KubernetesVersion(1, 9));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "1", "1.", "1.34.0", "one.two", "1.-3", "01.34", "1.34a", "99999999999.1"})
    void rejectsAnythingElseNamingTheInput(String text) {
        assertThatThrownBy(() -> KubernetesVersion.parse(text))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Kubernetes version must be <major>.<minor>, e.g. 1.34, got \"" + text + "\"");
    }

    @Test
    void rejectsNull() {
        assertThatThrownBy(() -> KubernetesVersion.parse(null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void comparesByMajorThenMinor() {
        KubernetesVersion v134 = new KubernetesVersion(1, 34);

        assertThat(v134).isLessThan(new KubernetesVersion(1, 100)).isGreaterThan(new KubernetesVersion(1, 9));
        assertThat(v134).isLessThan(new KubernetesVersion(2, 0));
        assertThat(v134.atLeast(1, 34)).isTrue();
        assertThat(v134.atLeast(1, 33)).isTrue();
        assertThat(v134.atLeast(1, 35)).isFalse();
        assertThat(v134.atLeast(2, 0)).isFalse();
        assertThat(v134.previousMinor()).isEqualTo(new KubernetesVersion(1, 33));
    }
}
