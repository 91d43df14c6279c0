package io.kdra.plugin.testing;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.UUID;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One {@link MockApiServer} for a test class, and per test fresh names for a driver, a node and a namespace, so that
 * the tests sharing the server do not see each other's objects. Register it as a static field with
 * {@code @RegisterExtension}; the server is up before each test instance is made, so its fields may take the client.
 */
public final class ApiServerFixture implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback {

    private MockApiServer server;
    private String testId;

    @Override
    public void beforeAll(ExtensionContext context) {
        server = new MockApiServer();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        server.close();
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        testId = UUID.randomUUID().toString().substring(0, 8);
    }

    public MockApiServer server() {
        return server;
    }

    public KubernetesClient client() {
        return server.client();
    }

    public String driverName() {
        return "d" + testId + ".example.com";
    }

    public String nodeName() {
        return "node-" + testId;
    }

    public String namespace() {
        return "ns-" + testId;
    }

    /** Creates the node named {@link #nodeName()}. */
    public Node createNode() {
        return client().nodes().resource(new NodeBuilder().withNewMetadata().withName(nodeName()).endMetadata()
                .build()).create();
    }
}
