package io.kdra.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.RecordComponent;
import java.time.Duration;
import java.util.function.BiFunction;
import org.junit.jupiter.api.Test;

class TimingTest {

    private static final Duration ODD = Duration.ofMillis(1234);

    @Test
    void eachCopyChangesItsOneSettingOnly() throws Exception {
        assertChangesOnly("pluginCallTimeout", Timing::withPluginCallTimeout);
        assertChangesOnly("sliceWipingDelay", Timing::withSliceWipingDelay);
        assertChangesOnly("reconcilePeriod", Timing::withReconcilePeriod);
        assertChangesOnly("bindingTimeout", Timing::withBindingTimeout);
        assertChangesOnly("nodeMonitorGracePeriod", Timing::withNodeMonitorGracePeriod);
        assertChangesOnly("deviceTaintRuleStatusPeriod", Timing::withDeviceTaintRuleStatusPeriod);
    }

    @Test
    void profilesByNameAndOnlyPositiveDurations() {
        assertThat(Timing.named("fast")).isSameAs(Timing.FAST);
        assertThat(Timing.named("real-timing")).isSameAs(Timing.REAL);
        assertThat(Timing.REAL.schedulerInitialBackoff()).isEqualTo(Duration.ofSeconds(1));
        assertThat(Timing.REAL.pluginRegistrationMaxBackoff()).isEqualTo(Duration.ofSeconds(122));
        assertThatThrownBy(() -> Timing.named("slow")).hasMessageContaining("use fast or real-timing");
        assertThatThrownBy(() -> Timing.FAST.withReconcilePeriod(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
    }

    private static void assertChangesOnly(String setting, BiFunction<Timing, Duration, Timing> with)
            throws Exception {
        Timing changed = with.apply(Timing.REAL, ODD);
        for (RecordComponent component : Timing.class.getRecordComponents()) {
            Object before = component.getAccessor().invoke(Timing.REAL);
            Object after = component.getAccessor().invoke(changed);
            assertThat(after).as(component.getName())
                    .isEqualTo(component.getName().equals(setting) ? ODD : before);
        }
    }
}
