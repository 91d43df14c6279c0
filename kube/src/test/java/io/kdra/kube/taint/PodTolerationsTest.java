package io.kdra.kube.taint;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** The cases of upstream's TestTolerationToleratesTaint and v1helper's TolerationsTolerateTaint. */
class PodTolerationsTest {

    @ParameterizedTest(name = "toleration {0}/{1}/{2}/{3} vs taint {4}={5}:{6} -> {7}")
    @CsvSource(nullValues = "-", value = {
        // key, operator, value, effect | taint key, value, effect | tolerated
        "foo, Equal, bar, NoExecute, foo, bar, NoExecute, true",
        "foo, -, bar, NoExecute, foo, bar, NoExecute, true",
        "foo, Equal, bar, NoExecute, foo, baz, NoExecute, false",
        "foo, Equal, bar, NoSchedule, foo, bar, NoExecute, false",
        "foo, Equal, bar, -, foo, bar, NoExecute, true",
        "foo, Exists, -, NoExecute, foo, anything, NoExecute, true",
        "foo, Exists, -, -, foo, -, PreferNoSchedule, true",
        "-, Exists, -, -, any, value, NoSchedule, true",
        "-, Exists, -, NoSchedule, any, value, NoExecute, false",
        "bar, Exists, -, -, foo, bar, NoExecute, false",
        "foo, Unknown, bar, -, foo, bar, NoExecute, false",
        // API validation forbids an empty key with Equal; matching alone still tolerates, as upstream
        "-, Equal, -, -, foo, -, NoExecute, true",
        "foo, Equal, -, -, foo, -, NoSchedule, true"
    })
    void toleratesTaint(String key, String operator, String value, String effect,
                        String taintKey, String taintValue, String taintEffect, boolean tolerated) {
        Toleration toleration = new TolerationBuilder().withKey(key).withOperator(operator).withValue(value)
                .withEffect(effect).build();
        Taint taint = new TaintBuilder().withKey(taintKey).withValue(taintValue).withEffect(taintEffect).build();

        assertThat(PodTolerations.tolerates(toleration, taint)).isEqualTo(tolerated);
        assertThat(PodTolerations.tolerated(List.of(toleration), taint)).isEqualTo(tolerated);
    }

    @Test
    void firstUntoleratedTaintOfTheFilteredEffects() {
        Taint preferred = new TaintBuilder().withKey("soft").withEffect("PreferNoSchedule").build();
        Taint tolerated = new TaintBuilder().withKey("gpu").withValue("yes").withEffect("NoSchedule").build();
        Taint blocking = new TaintBuilder().withKey("broken").withEffect("NoExecute").build();
        List<Toleration> tolerations = List.of(new TolerationBuilder().withKey("gpu").withOperator("Exists").build());

        assertThat(PodTolerations.firstUntolerated(List.of(preferred, tolerated, blocking), tolerations,
                PodTolerations.SCHEDULING_EFFECTS)).contains(blocking);
        assertThat(PodTolerations.firstUntolerated(List.of(preferred, tolerated), tolerations,
                PodTolerations.SCHEDULING_EFFECTS)).isEmpty();
        assertThat(PodTolerations.firstUntolerated(List.of(tolerated), null, PodTolerations.NO_EXECUTE)).isEmpty();
        assertThat(PodTolerations.tolerated(null, blocking)).isFalse();
    }
}
