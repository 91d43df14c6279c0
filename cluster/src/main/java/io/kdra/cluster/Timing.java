package io.kdra.cluster;

import java.time.Duration;
import java.util.Locale;

/**
 * Every delay of the control plane and the kubelets that upstream hard-codes, as named settings. {@link #REAL} holds
 * the upstream values; {@link #FAST} (the default) shortens them so that a spec that waits for one (slices wiped
 * after a driver is gone, a prepare retried, a node going NotReady) finishes in seconds. Tests that must observe the
 * state before a delay ends set that one delay long with a {@code with...} copy.
 *
 * @param pluginCallTimeout the kubelet's per-call timeout for NodePrepareResources and NodeUnprepareResources
 *     ({@code defaultClientCallTimeout}, 45 s)
 * @param registrationCallTimeout the kubelet's timeout for GetInfo (1 s upstream; NotifyRegistrationStatus gets 5×)
 * @param sliceWipingDelay how long the kubelet waits after a driver's last instance went away before deleting that
 *     driver's ResourceSlices of the node ({@code defaultWipingDelay}, 30 s)
 * @param reconcilePeriod how often the kubelet unprepares claims of pods it no longer runs
 *     ({@code defaultReconcilePeriod}, 60 s)
 * @param podRetryInitialBackoff the first delay before the kubelet retries a pod whose resources could not be
 *     prepared or whose containers could not start (the pod worker's {@code backOffPeriod}, 10 s)
 * @param podRetryMaxBackoff the longest such delay (the pod sync period, 1 min)
 * @param containerRestartMaxBackoff the cap of the crash-loop back-off between container restarts (5 min)
 * @param bindingTimeout how long the scheduler waits for a device's binding conditions (10 min)
 * @param nodeLeaseRenewInterval how often a kubelet renews its node Lease (10 s)
 * @param nodeMonitorGracePeriod how long a Lease may go unrenewed before the node lifecycle controller marks the node
 *     NotReady (40 s)
 * @param podGcPeriod how often the pod garbage collector looks for pods on deleted nodes (20 s)
 * @param tombstoneGracePeriod how long the kubelet keeps an unprepared claim's entry for late health updates (5 min)
 * @param healthStreamRetry how long the kubelet waits before reopening a broken health stream (5 s)
 */
public record Timing(Duration pluginCallTimeout, Duration registrationCallTimeout, Duration sliceWipingDelay,
        Duration reconcilePeriod, Duration podRetryInitialBackoff, Duration podRetryMaxBackoff,
        Duration containerRestartMaxBackoff, Duration bindingTimeout, Duration nodeLeaseRenewInterval,
        Duration nodeMonitorGracePeriod, Duration podGcPeriod, Duration tombstoneGracePeriod,
        Duration healthStreamRetry) {

    /** The upstream values. */
    public static final Timing REAL = new Timing(Duration.ofSeconds(45), Duration.ofSeconds(1), Duration.ofSeconds(30),
            Duration.ofSeconds(60), Duration.ofSeconds(10), Duration.ofMinutes(1), Duration.ofMinutes(5),
            Duration.ofMinutes(10), Duration.ofSeconds(10), Duration.ofSeconds(40), Duration.ofSeconds(20),
            Duration.ofMinutes(5), Duration.ofSeconds(5));

    /**
     * Short delays for tests and interactive use. The call timeouts stay long enough for a loaded 2-core machine;
     * the delays that only make a spec wait are cut to a second or two.
     */
    public static final Timing FAST = new Timing(Duration.ofSeconds(10), Duration.ofSeconds(1), Duration.ofSeconds(2),
            Duration.ofSeconds(1), Duration.ofMillis(200), Duration.ofSeconds(2), Duration.ofSeconds(2),
            Duration.ofSeconds(30), Duration.ofSeconds(1), Duration.ofSeconds(5), Duration.ofSeconds(1),
            Duration.ofSeconds(30), Duration.ofSeconds(1));

    public Timing {
        for (Duration d : new Duration[] {pluginCallTimeout, registrationCallTimeout, sliceWipingDelay, reconcilePeriod,
                podRetryInitialBackoff, podRetryMaxBackoff, containerRestartMaxBackoff, bindingTimeout,
                nodeLeaseRenewInterval, nodeMonitorGracePeriod, podGcPeriod, tombstoneGracePeriod,
                healthStreamRetry}) {
            if (d == null || d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException("every timing setting must be a positive duration");
            }
        }
    }

    /**
     * @param name {@code fast} or {@code real-timing}, as {@code kdra cluster up --timing} takes it
     */
    public static Timing named(String name) {
        return switch (name.toLowerCase(Locale.ROOT)) {
            case "fast" -> FAST;
            case "real-timing", "real" -> REAL;
            default -> throw new IllegalArgumentException(
                    "unknown timing profile \"" + name + "\"; use fast or real-timing");
        };
    }

    public Timing withPluginCallTimeout(Duration value) {
        return new Timing(value, registrationCallTimeout, sliceWipingDelay, reconcilePeriod, podRetryInitialBackoff,
                podRetryMaxBackoff, containerRestartMaxBackoff, bindingTimeout, nodeLeaseRenewInterval,
                nodeMonitorGracePeriod, podGcPeriod, tombstoneGracePeriod, healthStreamRetry);
    }

    public Timing withSliceWipingDelay(Duration value) {
        return new Timing(pluginCallTimeout, registrationCallTimeout, value, reconcilePeriod, podRetryInitialBackoff,
                podRetryMaxBackoff, containerRestartMaxBackoff, bindingTimeout, nodeLeaseRenewInterval,
                nodeMonitorGracePeriod, podGcPeriod, tombstoneGracePeriod, healthStreamRetry);
    }

    public Timing withReconcilePeriod(Duration value) {
        return new Timing(pluginCallTimeout, registrationCallTimeout, sliceWipingDelay, value, podRetryInitialBackoff,
                podRetryMaxBackoff, containerRestartMaxBackoff, bindingTimeout, nodeLeaseRenewInterval,
                nodeMonitorGracePeriod, podGcPeriod, tombstoneGracePeriod, healthStreamRetry);
    }

    public Timing withBindingTimeout(Duration value) {
        return new Timing(pluginCallTimeout, registrationCallTimeout, sliceWipingDelay, reconcilePeriod,
                podRetryInitialBackoff, podRetryMaxBackoff, containerRestartMaxBackoff, value, nodeLeaseRenewInterval,
                nodeMonitorGracePeriod, podGcPeriod, tombstoneGracePeriod, healthStreamRetry);
    }

    public Timing withNodeMonitorGracePeriod(Duration value) {
        return new Timing(pluginCallTimeout, registrationCallTimeout, sliceWipingDelay, reconcilePeriod,
                podRetryInitialBackoff, podRetryMaxBackoff, containerRestartMaxBackoff, bindingTimeout,
                nodeLeaseRenewInterval, value, podGcPeriod, tombstoneGracePeriod, healthStreamRetry);
    }
}
