package io.kdra.framework;

import java.time.Duration;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;

/**
 * The framework's Awaitility settings: a wait checks its condition at once and then every
 * {@link Timeouts#POLL_INTERVAL}, up to the given bound, so that a wait costs no more than the cluster needs.
 * {@code Waits.until("pod running", f.timeouts().podStart()).until(Pods.phase(f, pod), is(Pods.RUNNING))}.
 */
public final class Waits {

    private Waits() {
    }

    /** A wait for what is named, up to {@code atMost}. */
    public static ConditionFactory until(String what, Duration atMost) {
        return Awaitility.await(what).atMost(atMost).pollDelay(Duration.ZERO).pollInterval(Timeouts.POLL_INTERVAL);
    }

    /** A check that a condition holds for the whole {@code duration} (upstream's {@code Consistently}). */
    public static ConditionFactory during(String what, Duration duration) {
        return Awaitility.await(what).during(duration).atMost(duration.plusSeconds(30)).pollDelay(Duration.ZERO)
                .pollInterval(Timeouts.POLL_INTERVAL);
    }
}
