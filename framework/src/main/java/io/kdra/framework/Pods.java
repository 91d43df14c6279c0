package io.kdra.framework;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.ExecWatch;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/**
 * Pod reads for Awaitility and the pod waits of upstream's {@code e2epod}, so that waits read as sentences:
 * {@code await().until(Pods.phase(f, pod), is(Pods.RUNNING))}.
 */
public final class Pods {

    public static final String PENDING = "Pending";
    public static final String RUNNING = "Running";
    public static final String SUCCEEDED = "Succeeded";
    public static final String FAILED = "Failed";

    /** The output of a command run in a container. */
    public record ExecResult(String stdout, String stderr, int exitCode) {
    }

    private Pods() {
    }

    /** The pod as stored now, {@code null} once it is gone. */
    public static Callable<Pod> get(Framework f, Pod pod) {
        KubernetesClient client = f.client();
        String namespace = namespaceOf(f, pod);
        String name = pod.getMetadata().getName();
        return () -> client.pods().inNamespace(namespace).withName(name).get();
    }

    /** The pod's phase, {@code null} while it has none or once it is gone. */
    public static Callable<String> phase(Framework f, Pod pod) {
        Callable<Pod> get = get(f, pod);
        return () -> {
            Pod current = get.call();
            return current == null || current.getStatus() == null ? null : current.getStatus().getPhase();
        };
    }

    /** The pod's condition of this type, if it has one. */
    public static Callable<Optional<PodCondition>> condition(Framework f, Pod pod, String type) {
        Callable<Pod> get = get(f, pod);
        return () -> {
            Pod current = get.call();
            return current == null || current.getStatus() == null ? Optional.empty()
                    : current.getStatus().getConditions().stream().filter(c -> type.equals(c.getType())).findFirst();
        };
    }

    /** Waits until the pod runs (upstream's {@code WaitForPodRunningInNamespace}); fails early if it ended. */
    public static void waitForRunning(Framework f, Pod pod) {
        Callable<String> phase = phase(f, pod);
        Waits.until("pod " + pod.getMetadata().getName() + " running", f.timeouts().podStart()).until(() -> {
                    String current = phase.call();
                    if (SUCCEEDED.equals(current) || FAILED.equals(current)) {
                        throw new AssertionError("pod " + pod.getMetadata().getName() + " ended (" + current
                                + ") instead of running");
                    }
                    return RUNNING.equals(current);
                });
    }

    /** Waits until the pod succeeded (upstream's {@code WaitForPodSuccessInNamespace}); fails early if it failed. */
    public static void waitForSuccess(Framework f, Pod pod) {
        Callable<String> phase = phase(f, pod);
        Waits.until("pod " + pod.getMetadata().getName() + " succeeded", f.timeouts().podStart()).until(() -> {
                    String current = phase.call();
                    if (FAILED.equals(current)) {
                        throw new AssertionError("pod " + pod.getMetadata().getName() + " failed instead of "
                                + "succeeding");
                    }
                    return SUCCEEDED.equals(current);
                });
    }

    /** Waits until the pod is scheduled (condition PodScheduled True). */
    public static void waitForScheduled(Framework f, Pod pod) {
        Callable<Optional<PodCondition>> scheduled = condition(f, pod, "PodScheduled");
        Waits.until("pod " + pod.getMetadata().getName() + " scheduled", f.timeouts().podStart())
                .until(() -> scheduled.call().map(c -> "True".equals(c.getStatus())).orElse(false));
    }

    /**
     * Waits until the scheduler found the pod unschedulable (PodScheduled False, reason Unschedulable; upstream's
     * {@code WaitForPodNameUnschedulableInNamespace}).
     */
    public static void waitForUnschedulable(Framework f, Pod pod) {
        Callable<Optional<PodCondition>> scheduled = condition(f, pod, "PodScheduled");
        Waits.until("pod " + pod.getMetadata().getName() + " unschedulable", f.timeouts().podStart()).until(() -> scheduled.call()
                        .map(c -> "False".equals(c.getStatus()) && "Unschedulable".equals(c.getReason()))
                        .orElse(false));
    }

    /** Waits until the pod no longer runs: Succeeded or Failed (upstream's {@code WaitForPodNoLongerRunning...}). */
    public static void waitForNoLongerRunning(Framework f, Pod pod) {
        Callable<String> phase = phase(f, pod);
        Waits.until("pod " + pod.getMetadata().getName() + " no longer running", f.timeouts().podStart()).until(() -> {
                    String current = phase.call();
                    return SUCCEEDED.equals(current) || FAILED.equals(current);
                });
    }

    /** Waits until the pod is gone from the API. */
    public static void waitForNotFound(Framework f, Pod pod, Duration timeout) {
        Callable<Pod> get = get(f, pod);
        Waits.until("pod " + pod.getMetadata().getName() + " gone", timeout)
                .until(() -> get.call() == null);
    }

    /** Runs a command in a container through {@code pods/exec} and waits for it to end. */
    public static ExecResult exec(Framework f, Pod pod, String container, String... command) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        try (ExecWatch watch = f.client().pods().inNamespace(namespaceOf(f, pod))
                .withName(pod.getMetadata().getName()).inContainer(container)
                .writingOutput(out).writingError(err).exec(command)) {
            int exitCode = watch.exitCode().get(f.timeouts().podStartShort().toSeconds(), TimeUnit.SECONDS);
            return new ExecResult(out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8),
                    exitCode);
        }
    }

    private static String namespaceOf(Framework f, Pod pod) {
        String namespace = pod.getMetadata().getNamespace();
        return namespace == null ? f.namespace() : namespace;
    }
}
