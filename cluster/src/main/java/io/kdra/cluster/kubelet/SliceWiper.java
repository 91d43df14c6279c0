package io.kdra.cluster.kubelet;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes the node's ResourceSlices as the kubelet's DRA plugin manager does: one {@code DeleteCollection} with the
 * field selector {@code spec.nodeName=<node>} (all drivers, at kubelet start) or
 * {@code spec.nodeName=<node>,spec.driver=<driver>} (a driver gone for longer than the wiping delay), retried with
 * upstream's back-off (1 s, factor 2, jitter 0.2, cap 5 min, 100 steps) without holding a thread between attempts.
 */
final class SliceWiper {

    private static final Logger LOG = LoggerFactory.getLogger(SliceWiper.class);
    private static final Duration INITIAL = Duration.ofSeconds(1);
    private static final Duration CAP = Duration.ofMinutes(5);
    private static final int STEPS = 100;

    private final KubernetesClient client;
    private final String nodeName;
    private final ScheduledExecutorService executor;

    SliceWiper(KubernetesClient client, String nodeName, ScheduledExecutorService executor) {
        this.client = client;
        this.nodeName = nodeName;
        this.executor = executor;
    }

    /**
     * Starts wiping; the future completes when the slices are gone, or when {@code active} turns false (the kubelet
     * stopped) or the steps are used up.
     *
     * @param driver the driver whose slices go, or null for all of the node's slices
     */
    CompletableFuture<Void> wipe(String driver, BooleanSupplier active) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        executor.execute(() -> attempt(driver, active, 1, INITIAL, done));
        return done;
    }

    private void attempt(String driver, BooleanSupplier active, int step, Duration delay, CompletableFuture<Void> done) {
        if (!active.getAsBoolean()) {
            done.complete(null);
            return;
        }
        var slices = client.dynamicResourceAllocation().v1().resourcesSlices().withField("spec.nodeName", nodeName);
        if (driver != null) {
            slices = slices.withField("spec.driver", driver);
        }
        try {
            slices.delete();
            LOG.debug("node {}: deleted ResourceSlices of {}", nodeName, driver == null ? "all drivers" : driver);
            done.complete(null);
            return;
        } catch (KubernetesClientException e) {
            if (e.getCode() == 404) {
                done.complete(null);
                return;
            }
            LOG.info("node {}: deleting ResourceSlices of {} failed, retrying: {}", nodeName,
                    driver == null ? "all drivers" : driver, e.getMessage());
        } catch (RuntimeException e) {
            LOG.info("node {}: deleting ResourceSlices failed, retrying", nodeName, e);
        }
        if (step >= STEPS) {
            done.complete(null);
            return;
        }
        long jittered = (long) (delay.toMillis() * (1 + 0.2 * ThreadLocalRandom.current().nextDouble()));
        Duration next = delay.multipliedBy(2).compareTo(CAP) > 0 ? CAP : delay.multipliedBy(2);
        executor.schedule(() -> attempt(driver, active, step + 1, next, done), jittered, TimeUnit.MILLISECONDS);
    }
}
