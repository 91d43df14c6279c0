package io.kdra.cluster.controller;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.kdra.apiserver.ApiServer;
import io.kdra.apiserver.ApiServerConfig;
import io.kdra.apiserver.auth.UserInfo;
import io.kdra.kube.FeatureGates;
import io.kdra.kube.client.KubeClients;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real API server with an admin client (the test, standing in for the scheduler and the kubelets the controllers
 * have no use for here) and a client with kube-controller-manager's identity for the controllers.
 */
final class ControllerCluster implements AutoCloseable {

    private static final AtomicInteger NAMESPACES = new AtomicInteger();

    final ApiServer server;
    private final KubeClients clients = KubeClients.create();
    final KubernetesClient admin;
    final KubernetesClient controllers;
    private final HttpClient http = HttpClient.newHttpClient();

    ControllerCluster() {
        this(ApiServerConfig.defaults().featureGates());
    }

    /** @param gates the API server's gates: with a feature off, it drops that feature's fields from what is written */
    ControllerCluster(FeatureGates gates) {
        server = ApiServer.builder().config(ApiServerConfig.defaults().withFeatureGates(gates)).build().start();
        admin = client(server.adminToken(), "controller-test");
        controllers = client(server.issueToken(new UserInfo("system:kube-controller-manager", "",
                List.of("system:authenticated"), Map.of())), "kube-controller-manager");
    }

    private KubernetesClient client(String token, String userAgent) {
        Config config = new ConfigBuilder(Config.empty()).withMasterUrl(server.url()).withOauthToken(token)
                .withNamespace("default").withUserAgent(userAgent).withRequestRetryBackoffLimit(0)
                // a first request on a cold JVM on a loaded machine can take more than fabric8's default 10 s
                .withRequestTimeout(120_000).build();
        return clients.client(config);
    }

    String namespace() {
        String name = "ctl-" + NAMESPACES.incrementAndGet();
        admin.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(name).endMetadata().build())
                .create();
        return name;
    }

    /** What the scheduler does last: POST pods/binding. */
    void bind(String namespace, String pod, String node) {
        String body = """
                {"apiVersion":"v1","kind":"Binding","metadata":{"name":"%s"},"target":{"kind":"Node","name":"%s"}}"""
                .formatted(pod, node);
        HttpRequest request = HttpRequest.newBuilder(
                        URI.create(server.url() + "/api/v1/namespaces/" + namespace + "/pods/" + pod + "/binding"))
                .header("Authorization", "Bearer " + server.adminToken())
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
        try {
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 201) {
                throw new IllegalStateException("binding failed: " + response.body());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** What a kubelet reports: the pod's phase (and Running containers' restarts through a merge patch). */
    Pod setStatus(String namespace, String pod, String statusJson) {
        return admin.pods().inNamespace(namespace).withName(pod).subresource("status")
                .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"status\":" + statusJson + "}");
    }

    Pod setPhase(String namespace, String pod, String phase) {
        return setStatus(namespace, pod, "{\"phase\":\"" + phase + "\"}");
    }

    @Override
    public void close() {
        clients.close();
        server.close();
    }
}
