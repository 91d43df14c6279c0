package io.kdra.apiserver;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;

/**
 * The nodes and pods the streaming tests address: {@code node-1} is served by a {@link FakeKubelet}; pods on it
 * are {@code single} (container main), {@code multi} (init container init, containers main and sidecar) and
 * {@code ghost} (a container its kubelet does not know); {@code pending} is on no node, {@code lost} on a node that
 * does not exist, {@code offline} on a node whose kubelet does not answer, {@code faraway} on a node off the
 * loopback.
 */
final class StreamingPods {

    private StreamingPods() {}

    static void create(KubernetesClient client, String namespace, int kubeletPort, int closedPort) {
        client.nodes().resource(node("node-1", "127.0.0.1", kubeletPort)).create();
        client.nodes().resource(node("node-offline", "127.0.0.1", closedPort)).create();
        client.nodes().resource(node("node-faraway", "10.0.0.1", kubeletPort)).create();
        pod(client, namespace, "single", "node-1", List.of("main"), List.of());
        pod(client, namespace, "multi", "node-1", List.of("main", "sidecar"), List.of("init"));
        pod(client, namespace, "ghost", "node-1", List.of("ghost"), List.of());
        pod(client, namespace, "pending", null, List.of("main"), List.of());
        pod(client, namespace, "lost", "node-gone", List.of("main"), List.of());
        pod(client, namespace, "offline", "node-offline", List.of("main"), List.of());
        pod(client, namespace, "faraway", "node-faraway", List.of("main"), List.of());
    }

    private static Node node(String name, String address, int port) {
        return new NodeBuilder().withNewMetadata().withName(name).endMetadata()
                .withNewStatus()
                .addNewAddress().withType("InternalIP").withAddress(address).endAddress()
                .addNewAddress().withType("Hostname").withAddress(name).endAddress()
                .withNewDaemonEndpoints().withNewKubeletEndpoint().withPort(port).endKubeletEndpoint()
                .endDaemonEndpoints()
                .endStatus().build();
    }

    private static void pod(KubernetesClient client, String namespace, String name, String node,
            List<String> containers, List<String> initContainers) {
        client.pods().inNamespace(namespace).resource(new PodBuilder()
                .withNewMetadata().withName(name).endMetadata()
                .withNewSpec().withNodeName(node)
                .withContainers(containers.stream().map(c -> new ContainerBuilder().withName(c).withImage("busybox")
                        .build()).toList())
                .withInitContainers(initContainers.stream().map(c -> new ContainerBuilder().withName(c)
                        .withImage("busybox").build()).toList())
                .endSpec().build()).create();
    }
}
