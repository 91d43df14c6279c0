package io.kdra.apiserver;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kdra.kube.FeatureGates;
import io.kdra.kube.KubernetesVersion;
import io.kdra.kube.client.KubeClients;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.atomic.AtomicInteger;

/** One started API server with a fabric8 client and a raw HTTP client, shared by the tests of a class. */
final class ServerFixture implements AutoCloseable {

    private static final AtomicInteger NAMESPACES = new AtomicInteger();

    /**
     * Kubernetes 1.34 with every DRA feature of its API on, for tests that write every field of the resource.k8s.io
     * kinds (fields of disabled features would be dropped).
     */
    static final ApiServerConfig EVERY_DRA_FIELD = ApiServerConfig.defaults().withFeatureGates(FeatureGates.parse(
            new KubernetesVersion(1, 34), "DRADeviceTaints=true,DRAPartitionableDevices=true,"
                    + "DRAConsumableCapacity=true,DRADeviceBindingConditions=true,DRAExtendedResource=true"));

    final ApiServer server;
    final KubeClients clients = KubeClients.create();
    final KubernetesClient client;
    final HttpClient http = HttpClient.newHttpClient();

    ServerFixture() {
        this(ApiServerConfig.defaults());
    }

    ServerFixture(ApiServerConfig config) {
        this(ApiServer.builder().config(config).build());
    }

    /** Starts the given server. */
    ServerFixture(ApiServer notStarted) {
        server = notStarted.start();
        client = clientFor(server.adminToken());
    }

    KubernetesClient clientFor(String token) {
        return clients.client(server.url(), token, server.caCertificatePem());
    }

    /** A client with a configuration of the test's own, closed with the fixture. */
    KubernetesClient clientFor(Config config) {
        return clients.client(config);
    }

    /** @return a new namespace for one test */
    String namespace() {
        String name = "test-" + NAMESPACES.incrementAndGet();
        client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(name).endMetadata().build())
                .create();
        return name;
    }

    /** A raw request with the admin token; the body (may be null) is sent with the content type. */
    HttpResponse<String> send(String method, String path, String contentType, String body) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(server.url() + path))
                .header("Authorization", "Bearer " + server.adminToken())
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body));
        if (contentType != null) {
            request.header("Content-Type", contentType);
        }
        try {
            return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        clients.close();
        server.close();
    }
}
