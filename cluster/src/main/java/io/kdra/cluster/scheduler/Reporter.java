package io.kdra.cluster.scheduler;

import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.kdra.cluster.EventRecorder;
import java.net.HttpURLConnection;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the scheduler tells users: the pod's {@code PodScheduled} condition (through {@code pods/status}, as a strategic
 * merge patch) and core/v1 Events ({@code FailedScheduling}, {@code Scheduled}, {@code BindingConditionsPending}).
 * Writes run in order on one thread of their own so that scheduling never waits for them.
 */
final class Reporter implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Reporter.class);

    static final String UNSCHEDULABLE = "Unschedulable";
    static final String SCHEDULER_ERROR = "SchedulerError";
    /** A pod that changes between the read and the write is read again, a few times. */
    private static final int CONDITION_WRITE_ATTEMPTS = 3;

    private final KubernetesClient client;
    private final ExecutorService writer;
    private final EventRecorder events;
    /** The last FailedScheduling message per pod UID, so that an unchanged failure is reported once. */
    private final Map<String, String> lastFailure = new ConcurrentHashMap<>();

    Reporter(KubernetesClient client, String component) {
        this.client = client;
        this.writer = Executors.newSingleThreadExecutor(runnable -> {
            Thread thread = new Thread(runnable, component + "-reporter");
            thread.setDaemon(true);
            return thread;
        });
        this.events = EventRecorder.on(client, component, null, writer);
    }

    /** PodScheduled=False with the reason ({@link #UNSCHEDULABLE} or {@link #SCHEDULER_ERROR}) and a Warning event. */
    void failed(Pod pod, String reason, String message) {
        submit(() -> {
            writeCondition(pod, reason, message);
            if (!message.equals(lastFailure.put(pod.getMetadata().getUid(), message))) {
                writeEvent(pod, "Warning", "FailedScheduling", "Scheduling", message);
            }
        });
    }

    void scheduled(Pod pod, String node) {
        lastFailure.remove(pod.getMetadata().getUid());
        event(pod, "Normal", "Scheduled", "Binding", String.format("Successfully assigned %s/%s to %s",
                pod.getMetadata().getNamespace(), pod.getMetadata().getName(), node));
    }

    void event(Pod pod, String type, String reason, String action, String message) {
        submit(() -> writeEvent(pod, type, reason, action, message));
    }

    void forget(String podUid) {
        lastFailure.remove(podUid);
    }

    private void submit(Runnable write) {
        try {
            writer.execute(() -> {
                try {
                    write.run();
                } catch (KubernetesClientException e) {
                    LOG.debug("could not write a pod condition or event: {}", e.getMessage());
                }
            });
        } catch (RejectedExecutionException e) {
            LOG.debug("scheduler closed; a pod condition or event is not written");
        }
    }

    /**
     * Upstream's updatePod: nothing to write when the condition says the same already. The write runs after the
     * scheduling attempt, and a retry may have bound the pod meanwhile (its binding set PodScheduled=True): so the
     * condition is written only on the pod as it is now, unbound, with its resourceVersion as the precondition.
     */
    private void writeCondition(Pod failed, String reason, String message) {
        for (int attempt = 0; attempt < CONDITION_WRITE_ATTEMPTS; attempt++) {
            Pod pod = client.pods().inNamespace(failed.getMetadata().getNamespace())
                    .withName(failed.getMetadata().getName()).get();
            if (pod == null || !Objects.equals(pod.getMetadata().getUid(), failed.getMetadata().getUid())
                    || pod.getSpec().getNodeName() != null) {
                return;
            }
            try {
                writeCondition(pod, reason, message, pod.getMetadata().getResourceVersion());
                return;
            } catch (KubernetesClientException e) {
                if (e.getCode() != HttpURLConnection.HTTP_CONFLICT) {
                    throw e;
                }
            }
        }
        LOG.debug("pod {}/{} kept changing; its PodScheduled condition is not written", failed.getMetadata()
                .getNamespace(), failed.getMetadata().getName());
    }

    private void writeCondition(Pod pod, String reason, String message, String resourceVersion) {
        PodCondition existing = null;
        if (pod.getStatus() != null && pod.getStatus().getConditions() != null) {
            existing = pod.getStatus().getConditions().stream()
                    .filter(condition -> "PodScheduled".equals(condition.getType())).findFirst().orElse(null);
        }
        if (existing != null && "False".equals(existing.getStatus()) && reason.equals(existing.getReason())
                && message.equals(existing.getMessage())) {
            return;
        }
        String transition = existing != null && "False".equals(existing.getStatus())
                && existing.getLastTransitionTime() != null ? existing.getLastTransitionTime() : now();
        Map<String, Object> condition = new LinkedHashMap<>();
        condition.put("type", "PodScheduled");
        condition.put("status", "False");
        condition.put("lastProbeTime", null);
        condition.put("lastTransitionTime", transition);
        condition.put("reason", reason);
        condition.put("message", message);
        String patch = client.getKubernetesSerialization().asJson(Map.of(
                "metadata", Map.of("resourceVersion", resourceVersion),
                "status", Map.of("conditions", List.of(condition))));
        client.pods().inNamespace(pod.getMetadata().getNamespace()).withName(pod.getMetadata().getName())
                .subresource("status").patch(PatchContext.of(PatchType.STRATEGIC_MERGE), patch);
    }

    private void writeEvent(Pod pod, String type, String reason, String action, String message) {
        events.writeNow(new ObjectReferenceBuilder().withApiVersion("v1").withKind("Pod")
                .withNamespace(pod.getMetadata().getNamespace()).withName(pod.getMetadata().getName())
                .withUid(pod.getMetadata().getUid()).withResourceVersion(pod.getMetadata().getResourceVersion())
                .build(), type, reason, action, message);
    }

    private static String now() {
        return Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
    }

    static String statusMessage(KubernetesClientException e) {
        if (e.getStatus() != null && e.getStatus().getMessage() != null) {
            return e.getStatus().getMessage();
        }
        return Objects.toString(e.getMessage(), e.getClass().getSimpleName());
    }

    @Override
    public void close() {
        writer.shutdownNow();
    }
}
