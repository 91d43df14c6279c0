package io.kdra.cluster;

import java.time.Duration;
import java.util.Locale;
import java.util.function.Consumer;

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
 * @param containerRestartInitialBackoff the first delay of the crash-loop back-off, after the immediate first
 *     restart ({@code initialBackOffPeriod}, 10 s)
 * @param pluginDialTimeout how long the kubelet's plugin registration waits for a plugin's socket to connect (10 s)
 * @param pluginRegistrationInitialBackoff the first delay before the kubelet retries a failed plugin registration
 *     (the operation executor's exponential back-off, 500 ms)
 * @param pluginRegistrationMaxBackoff the longest such delay (2 min 2 s)
 * @param schedulerInitialBackoff the scheduler's back-off after a pod's first failed attempt
 *     ({@code podInitialBackoffSeconds}, 1 s), doubling per attempt
 * @param schedulerMaxBackoff the longest such back-off ({@code podMaxBackoffSeconds}, 10 s)
 * @param podMaxInUnschedulablePodsDuration how long an unschedulable pod waits for a cluster event that may help it
 *     before the scheduler tries it again anyway ({@code podMaxInUnschedulablePodsDuration}, 5 min)
 * @param deviceTaintRuleStatusPeriod the shortest time between two status updates of a DeviceTaintRule while the
 *     device-taint eviction controller evicts its pods (10 s)
 */
public record Timing(Duration pluginCallTimeout, Duration registrationCallTimeout, Duration sliceWipingDelay,
        Duration reconcilePeriod, Duration podRetryInitialBackoff, Duration podRetryMaxBackoff,
        Duration containerRestartMaxBackoff, Duration bindingTimeout, Duration nodeLeaseRenewInterval,
        Duration nodeMonitorGracePeriod, Duration podGcPeriod, Duration tombstoneGracePeriod,
        Duration healthStreamRetry, Duration containerRestartInitialBackoff, Duration pluginDialTimeout,
        Duration pluginRegistrationInitialBackoff, Duration pluginRegistrationMaxBackoff,
        Duration schedulerInitialBackoff, Duration schedulerMaxBackoff, Duration podMaxInUnschedulablePodsDuration,
        Duration deviceTaintRuleStatusPeriod) {

    /** The upstream values. */
    public static final Timing REAL = new Timing(
            Duration.ofSeconds(45),                 // pluginCallTimeout
            Duration.ofSeconds(1),                  // registrationCallTimeout
            Duration.ofSeconds(30),                 // sliceWipingDelay
            Duration.ofSeconds(60),                 // reconcilePeriod
            Duration.ofSeconds(10),                 // podRetryInitialBackoff
            Duration.ofMinutes(1),                  // podRetryMaxBackoff
            Duration.ofMinutes(5),                  // containerRestartMaxBackoff
            Duration.ofMinutes(10),                 // bindingTimeout
            Duration.ofSeconds(10),                 // nodeLeaseRenewInterval
            Duration.ofSeconds(40),                 // nodeMonitorGracePeriod
            Duration.ofSeconds(20),                 // podGcPeriod
            Duration.ofMinutes(5),                  // tombstoneGracePeriod
            Duration.ofSeconds(5),                  // healthStreamRetry
            Duration.ofSeconds(10),                 // containerRestartInitialBackoff
            Duration.ofSeconds(10),                 // pluginDialTimeout
            Duration.ofMillis(500),                 // pluginRegistrationInitialBackoff
            Duration.ofMinutes(2).plusSeconds(2),   // pluginRegistrationMaxBackoff
            Duration.ofSeconds(1),                  // schedulerInitialBackoff
            Duration.ofSeconds(10),                 // schedulerMaxBackoff
            Duration.ofMinutes(5),                  // podMaxInUnschedulablePodsDuration
            Duration.ofSeconds(10));                // deviceTaintRuleStatusPeriod

    /**
     * Short delays for tests and interactive use. The call and dial timeouts stay long enough for a loaded 2-core
     * machine; the delays that only make a spec wait are cut to a second or two.
     */
    public static final Timing FAST = new Timing(
            Duration.ofSeconds(10),                 // pluginCallTimeout
            Duration.ofSeconds(1),                  // registrationCallTimeout
            Duration.ofSeconds(2),                  // sliceWipingDelay
            Duration.ofSeconds(1),                  // reconcilePeriod
            Duration.ofMillis(200),                 // podRetryInitialBackoff
            Duration.ofSeconds(2),                  // podRetryMaxBackoff
            Duration.ofSeconds(2),                  // containerRestartMaxBackoff
            Duration.ofSeconds(30),                 // bindingTimeout
            Duration.ofSeconds(1),                  // nodeLeaseRenewInterval
            Duration.ofSeconds(5),                  // nodeMonitorGracePeriod
            Duration.ofSeconds(1),                  // podGcPeriod
            Duration.ofSeconds(30),                 // tombstoneGracePeriod
            Duration.ofSeconds(1),                  // healthStreamRetry
            Duration.ofMillis(200),                 // containerRestartInitialBackoff
            Duration.ofSeconds(10),                 // pluginDialTimeout
            Duration.ofMillis(200),                 // pluginRegistrationInitialBackoff
            Duration.ofSeconds(2),                  // pluginRegistrationMaxBackoff
            Duration.ofMillis(200),                 // schedulerInitialBackoff
            Duration.ofSeconds(2),                  // schedulerMaxBackoff
            Duration.ofSeconds(30),                 // podMaxInUnschedulablePodsDuration
            Duration.ofSeconds(1));                 // deviceTaintRuleStatusPeriod

    public Timing {
        for (Duration d : new Duration[] {pluginCallTimeout, registrationCallTimeout, sliceWipingDelay, reconcilePeriod,
                podRetryInitialBackoff, podRetryMaxBackoff, containerRestartMaxBackoff, bindingTimeout,
                nodeLeaseRenewInterval, nodeMonitorGracePeriod, podGcPeriod, tombstoneGracePeriod,
                healthStreamRetry, containerRestartInitialBackoff, pluginDialTimeout,
                pluginRegistrationInitialBackoff, pluginRegistrationMaxBackoff, schedulerInitialBackoff,
                schedulerMaxBackoff, podMaxInUnschedulablePodsDuration, deviceTaintRuleStatusPeriod}) {
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
        return copy(settings -> settings.pluginCallTimeout = value);
    }

    public Timing withSliceWipingDelay(Duration value) {
        return copy(settings -> settings.sliceWipingDelay = value);
    }

    public Timing withReconcilePeriod(Duration value) {
        return copy(settings -> settings.reconcilePeriod = value);
    }

    public Timing withBindingTimeout(Duration value) {
        return copy(settings -> settings.bindingTimeout = value);
    }

    public Timing withNodeMonitorGracePeriod(Duration value) {
        return copy(settings -> settings.nodeMonitorGracePeriod = value);
    }

    public Timing withDeviceTaintRuleStatusPeriod(Duration value) {
        return copy(settings -> settings.deviceTaintRuleStatusPeriod = value);
    }

    private Timing copy(Consumer<Settings> change) {
        Settings settings = new Settings(this);
        change.accept(settings);
        return settings.toTiming();
    }

    /** A mutable copy, so that each {@code with...} names only the setting it changes. */
    private static final class Settings {
        Duration pluginCallTimeout;
        Duration registrationCallTimeout;
        Duration sliceWipingDelay;
        Duration reconcilePeriod;
        Duration podRetryInitialBackoff;
        Duration podRetryMaxBackoff;
        Duration containerRestartMaxBackoff;
        Duration bindingTimeout;
        Duration nodeLeaseRenewInterval;
        Duration nodeMonitorGracePeriod;
        Duration podGcPeriod;
        Duration tombstoneGracePeriod;
        Duration healthStreamRetry;
        Duration containerRestartInitialBackoff;
        Duration pluginDialTimeout;
        Duration pluginRegistrationInitialBackoff;
        Duration pluginRegistrationMaxBackoff;
        Duration schedulerInitialBackoff;
        Duration schedulerMaxBackoff;
        Duration podMaxInUnschedulablePodsDuration;
        Duration deviceTaintRuleStatusPeriod;

        Settings(Timing timing) {
            pluginCallTimeout = timing.pluginCallTimeout;
            registrationCallTimeout = timing.registrationCallTimeout;
            sliceWipingDelay = timing.sliceWipingDelay;
            reconcilePeriod = timing.reconcilePeriod;
            podRetryInitialBackoff = timing.podRetryInitialBackoff;
            podRetryMaxBackoff = timing.podRetryMaxBackoff;
            containerRestartMaxBackoff = timing.containerRestartMaxBackoff;
            bindingTimeout = timing.bindingTimeout;
            nodeLeaseRenewInterval = timing.nodeLeaseRenewInterval;
            nodeMonitorGracePeriod = timing.nodeMonitorGracePeriod;
            podGcPeriod = timing.podGcPeriod;
            tombstoneGracePeriod = timing.tombstoneGracePeriod;
            healthStreamRetry = timing.healthStreamRetry;
            containerRestartInitialBackoff = timing.containerRestartInitialBackoff;
            pluginDialTimeout = timing.pluginDialTimeout;
            pluginRegistrationInitialBackoff = timing.pluginRegistrationInitialBackoff;
            pluginRegistrationMaxBackoff = timing.pluginRegistrationMaxBackoff;
            schedulerInitialBackoff = timing.schedulerInitialBackoff;
            schedulerMaxBackoff = timing.schedulerMaxBackoff;
            podMaxInUnschedulablePodsDuration = timing.podMaxInUnschedulablePodsDuration;
            deviceTaintRuleStatusPeriod = timing.deviceTaintRuleStatusPeriod;
        }

        Timing toTiming() {
            return new Timing(pluginCallTimeout, registrationCallTimeout, sliceWipingDelay, reconcilePeriod,
                    podRetryInitialBackoff, podRetryMaxBackoff, containerRestartMaxBackoff, bindingTimeout,
                    nodeLeaseRenewInterval, nodeMonitorGracePeriod, podGcPeriod, tombstoneGracePeriod,
                    healthStreamRetry, containerRestartInitialBackoff, pluginDialTimeout,
                    pluginRegistrationInitialBackoff, pluginRegistrationMaxBackoff, schedulerInitialBackoff,
                    schedulerMaxBackoff, podMaxInUnschedulablePodsDuration, deviceTaintRuleStatusPeriod);
        }
    }
}
