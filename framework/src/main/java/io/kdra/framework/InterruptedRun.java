package io.kdra.framework;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A run that is interrupted (Ctrl-C, SIGTERM: the JVM shuts down) still removes what its running specs created: a
 * shutdown hook, installed with the first spec, runs the pending cleanups of every spec still running, side by side,
 * and gives up after {@link #PATIENCE} so that the JVM still ends. On a cluster that outlives the run (a
 * kubeconfig's) that is its proxy pods and their sockets, namespaces, cluster-wide RBAC and admission policies.
 * {@code kill -9} leaves them behind.
 */
final class InterruptedRun {

    private static final Logger LOG = LoggerFactory.getLogger(InterruptedRun.class);
    /** Long enough for proxy pods to end on a real node (30 s of grace) and a namespace to be deleted. */
    static final Duration PATIENCE = Duration.ofMinutes(2);
    /** The frameworks whose spec is set up and not yet torn down. */
    private static final Set<Framework> RUNNING = ConcurrentHashMap.newKeySet();
    private static final AtomicBoolean HOOK_INSTALLED = new AtomicBoolean();
    private static volatile boolean interrupted;

    private InterruptedRun() {
    }

    static void specStarted(Framework framework) {
        if (HOOK_INSTALLED.compareAndSet(false, true)) {
            Runtime.getRuntime().addShutdownHook(new Thread(InterruptedRun::cleanUp, "kdra-interrupted-run"));
        }
        RUNNING.add(framework);
    }

    static void specEnded(Framework framework) {
        RUNNING.remove(framework);
    }

    /** Whether the JVM is shutting down with specs running: cleanups that only wait are then skipped. */
    static boolean isInterrupted() {
        return interrupted;
    }

    private static void cleanUp() {
        List<Framework> running = List.copyOf(RUNNING);
        if (running.isEmpty()) {
            return;
        }
        interrupted = true;
        LOG.warn("the run was interrupted: removing what {} running spec(s) created (at most {} s)", running.size(),
                PATIENCE.toSeconds());
        List<Thread> workers = new ArrayList<>();
        for (Framework framework : running) {
            Thread worker = new Thread(() -> cleanUp(framework), "kdra-interrupted-cleanup");
            worker.setDaemon(true);
            worker.start();
            workers.add(worker);
        }
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        try {
            for (Thread worker : workers) {
                worker.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (workers.stream().anyMatch(Thread::isAlive)) {
            LOG.error("the cleanups of the interrupted run did not end within {} s: namespaces with the label "
                    + "e2e-framework, cluster roles named <driver>-kubelet-plugin or admission policies named "
                    + "resourceslices-policy-dra-kubelet-plugin-<driver> may be left (docs/kind.md, \"When something "
                    + "is left behind\")", PATIENCE.toSeconds());
        } else {
            LOG.warn("the interrupted run's specs are cleaned up");
        }
    }

    private static void cleanUp(Framework framework) {
        List<Throwable> failures = framework.runPendingCleanups();
        for (Throwable failure : failures) {
            LOG.warn("{}: {}", framework.specName(), failure.getMessage());
        }
    }
}
