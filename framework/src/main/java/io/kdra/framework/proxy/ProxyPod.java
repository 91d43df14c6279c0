package io.kdra.framework.proxy;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.util.Comparator;
import java.util.Optional;

/**
 * The driver's proxy pod on one node, whichever pod that is now: its ReplicaSet replaces a pod that was deleted or
 * evicted, and the exec'd proxies, port-forwards and CDI file writes then go to the replacement. The last pod found is
 * used while it runs. Unknown until {@link #find()} found one.
 */
final class ProxyPod {

    private final KubernetesClient client;
    private final String namespace;
    private final String instanceName;
    private final String nodeName;
    private volatile String current;

    ProxyPod(KubernetesClient client, String namespace, String instanceName, String nodeName) {
        this.client = client;
        this.namespace = namespace;
        this.instanceName = instanceName;
        this.nodeName = nodeName;
    }

    String namespace() {
        return namespace;
    }

    String nodeName() {
        return nodeName;
    }

    /** The name of the pod last found, for messages. */
    String lastName() {
        return current;
    }

    /**
     * The running proxy pod on the node.
     *
     * @throws IOException when none runs there (its replacement is not running yet, or the ReplicaSet is gone)
     */
    String name() throws IOException {
        String known = current;
        if (known != null && running(client.pods().inNamespace(namespace).withName(known).get())) {
            return known;
        }
        return find().map(pod -> pod.getMetadata().getName()).orElseThrow(() -> new IOException(
                "no running proxy pod of driver " + instanceName + " on node " + nodeName
                        + (known == null ? "" : " (pod " + known + " is gone or not running)")));
    }

    /** Looks for the running proxy pod on the node (the newest, should there be two) and remembers it. */
    Optional<Pod> find() {
        Optional<Pod> found = client.pods().inNamespace(namespace)
                .withLabel("app.kubernetes.io/instance", instanceName).withLabel(ProxyDeployment.NODE_LABEL, nodeName)
                .list().getItems().stream()
                .filter(pod -> nodeName.equals(pod.getSpec().getNodeName()))
                .filter(ProxyPod::running)
                .max(Comparator.comparing(pod -> pod.getMetadata().getCreationTimestamp()));
        found.ifPresent(pod -> current = pod.getMetadata().getName());
        return found;
    }

    private static boolean running(Pod pod) {
        return pod != null && pod.getMetadata().getDeletionTimestamp() == null && pod.getStatus() != null
                && "Running".equals(pod.getStatus().getPhase());
    }
}
