package io.kdra.framework;

import java.time.Duration;

/**
 * The waits upstream's e2e framework and dra.go use, with their upstream values ({@code f.Timeouts} and the
 * constants of test/e2e/dra). Specs wait with these bounds; on the embedded cluster the waits end long before.
 *
 * @param podStart how long a pod may take to start (upstream {@code PodStart} and dra.go's {@code podStartTimeout})
 * @param podStartShort {@code PodStartShort}
 * @param podStartSlow {@code PodStartSlow}
 * @param podDelete {@code PodDelete}
 * @param pluginRegistration how long {@code Driver.setUp} waits for the kubelet to register each plugin
 * @param resourceSlicesGone how long {@code Driver.isGone} waits for the driver's ResourceSlices to disappear
 * @param builderTearDown each wait of the Builder's teardown (pods gone, claims unprepared, claims gone)
 * @param pending how long "stays Pending" checks watch a pod (upstream's Consistently 20 s)
 */
public record Timeouts(Duration podStart, Duration podStartShort, Duration podStartSlow, Duration podDelete,
        Duration pluginRegistration, Duration resourceSlicesGone, Duration builderTearDown, Duration pending) {

    /** The upstream values. */
    public static final Timeouts UPSTREAM = new Timeouts(Duration.ofMinutes(5), Duration.ofMinutes(2),
            Duration.ofMinutes(15), Duration.ofMinutes(5), Duration.ofMinutes(1), Duration.ofMinutes(2),
            Duration.ofMinutes(1), Duration.ofSeconds(20));

    /** A copy with another bound for "stays Pending" checks. */
    public Timeouts withPending(Duration bound) {
        return new Timeouts(podStart, podStartShort, podStartSlow, podDelete, pluginRegistration, resourceSlicesGone,
                builderTearDown, bound);
    }

    /** How often waits poll, as upstream's Consistently in dra.go (200 ms). */
    public static final Duration POLL_INTERVAL = Duration.ofMillis(200);
}
