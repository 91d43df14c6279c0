package io.kdra.testdriver;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.kdra.apiserver.ApiServer;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.concurrent.atomic.AtomicInteger;

/** The embedded API server with an admin client, shared by the tests of a class. */
final class TestCluster implements AutoCloseable {

    private static final AtomicInteger NAMESPACES = new AtomicInteger();

    final ApiServer server;
    final KubernetesClient client;

    TestCluster() {
        server = ApiServer.builder().build().start();
        String ca = server.caCertificatePem();
        Config config = new ConfigBuilder().withMasterUrl(server.url()).withOauthToken(server.adminToken())
                .withCaCertData(ca == null ? null
                        : Base64.getEncoder().encodeToString(ca.getBytes(StandardCharsets.UTF_8)))
                .withRequestRetryBackoffLimit(0).build();
        client = new KubernetesClientBuilder().withConfig(config).build();
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
        client.close();
        server.close();
    }
}
