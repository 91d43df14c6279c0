package io.kdra.bench.scheduling;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.kdra.kube.client.Informers;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Follows the benchmark's pods through one informer, as scheduler_perf's collector does, and counts per phase (the
 * pods' {@value #PHASE_LABEL} label) those that were scheduled ({@code spec.nodeName} set) and that were Running.
 * Each pod counts once, whatever happens to it later.
 */
final class PodTracker implements AutoCloseable {

    static final String PHASE_LABEL = "kdra-bench-phase";

    /** The counts of one phase, and when each last grew. */
    static final class Counts {
        final AtomicLong scheduled = new AtomicLong();
        final AtomicLong running = new AtomicLong();
        volatile long lastScheduledNanos;
        volatile long lastRunningNanos;
    }

    private final Map<String, Counts> phases = new ConcurrentHashMap<>();
    private final Set<String> scheduled = ConcurrentHashMap.newKeySet();
    private final Set<String> running = ConcurrentHashMap.newKeySet();
    private final SharedIndexInformer<Pod> informer;
    private volatile Consumer<Pod> onScheduled = pod -> { };

    PodTracker(KubernetesClient client) {
        informer = client.pods().inAnyNamespace().withLabel(PHASE_LABEL).inform(Informers.handler(this::observe, pod -> { }));
    }

    Counts phase(String phase) {
        return phases.computeIfAbsent(phase, p -> new Counts());
    }

    /** Called (on the informer's thread) once for each pod when it is first seen scheduled. */
    void onScheduled(Consumer<Pod> action) {
        this.onScheduled = action;
    }

    private void observe(Pod pod) {
        String phase = pod.getMetadata().getLabels().get(PHASE_LABEL);
        String key = pod.getMetadata().getUid();
        Counts counts = phase(phase);
        if (pod.getSpec().getNodeName() != null && scheduled.add(key)) {
            counts.scheduled.incrementAndGet();
            counts.lastScheduledNanos = System.nanoTime();
            onScheduled.accept(pod);
        }
        if (pod.getStatus() != null && "Running".equals(pod.getStatus().getPhase()) && running.add(key)) {
            counts.running.incrementAndGet();
            counts.lastRunningNanos = System.nanoTime();
        }
    }

    @Override
    public void close() {
        informer.stop();
    }
}
