package io.kdra.testdriver;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kdra.apiserver.ApiServer;
import io.kdra.kube.client.KubeClients;
import java.util.concurrent.atomic.AtomicInteger;

/** The embedded API server with an admin client, shared by the tests of a class. */
final class TestCluster implements AutoCloseable {

    private static final AtomicInteger NAMESPACES = new AtomicInteger();

    final ApiServer server;
    final KubeClients clients = KubeClients.create();
    final KubernetesClient client;

    TestCluster() {
        server = ApiServer.builder().build().start();
        client = clients.client(server.url(), server.adminToken(), server.caCertificatePem());
    }

    /** A fresh namespace for one test. */
    String namespace() {
        String name = "test-" + NAMESPACES.incrementAndGet();
        client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(name).endMetadata().build())
                .create();
        return name;
    }

    /** A Node object, which node-local ResourceSlices are owned by. */
    Node node(String name) {
        return client.nodes().resource(new NodeBuilder().withNewMetadata().withName(name).endMetadata().build())
                .create();
    }

    @Override
    public void close() {
        clients.close();
        server.close();
    }
}
