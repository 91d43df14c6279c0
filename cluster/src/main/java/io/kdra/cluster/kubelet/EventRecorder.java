package io.kdra.cluster.kubelet;

import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The kubelet's pod events, as core v1 Events with source {@code kubelet} on the node, written in the background so
 * a pod sync does not wait for them (upstream's recorder is asynchronous too).
 */
final class EventRecorder {

    private static final Logger LOG = LoggerFactory.getLogger(EventRecorder.class);
    static final String COMPONENT = "kubelet";

    private final KubernetesClient client;
    private final String nodeName;
    private final Executor executor;

    EventRecorder(KubernetesClient client, String nodeName, Executor executor) {
        this.client = client;
        this.nodeName = nodeName;
        this.executor = executor;
    }

    void normal(Pod pod, String container, String reason, String message) {
        record(pod, container, "Normal", reason, message);
    }

    void warning(Pod pod, String container, String reason, String message) {
        record(pod, container, "Warning", reason, message);
    }

    /**
     * @param container the container the event is about, or null for the pod
     */
    private void record(Pod pod, String container, String type, String reason, String message) {
        String namespace = pod.getMetadata().getNamespace();
        String fieldPath = container == null ? null : containerFieldPath(pod, container);
        String now = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
        var event = new EventBuilder().withNewMetadata()
                .withName(pod.getMetadata().getName() + "." + Long.toHexString(System.nanoTime())
                        + Integer.toHexString(ThreadLocalRandom.current().nextInt(0x1000)))
                .withNamespace(namespace).endMetadata()
                .withNewInvolvedObject().withApiVersion("v1").withKind("Pod").withNamespace(namespace)
                .withName(pod.getMetadata().getName()).withUid(pod.getMetadata().getUid()).withFieldPath(fieldPath)
                .endInvolvedObject()
                .withType(type).withReason(reason).withMessage(message)
                .withNewSource().withComponent(COMPONENT).withHost(nodeName).endSource()
                .withReportingComponent(COMPONENT).withReportingInstance(nodeName)
                .withFirstTimestamp(now).withLastTimestamp(now).withCount(1)
                .build();
        executor.execute(() -> {
            try {
                client.v1().events().inNamespace(namespace).resource(event).create();
            } catch (RuntimeException e) {
                LOG.debug("node {}: event {} for pod {}/{} not written: {}", nodeName, reason, namespace,
                        pod.getMetadata().getName(), e.getMessage());
            }
        });
    }

    private static String containerFieldPath(Pod pod, String container) {
        boolean init = pod.getSpec().getInitContainers().stream().anyMatch(c -> c.getName().equals(container));
        return (init ? "spec.initContainers{" : "spec.containers{") + container + "}";
    }
}
