package io.kdra.apiserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kdra.apiserver.auth.UserInfo;
import io.kdra.kube.client.KubeClients;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The plain loopback listener for the embedded cluster's own components: the same API, the same authentication and
 * authorization as the https port, only without TLS, and named by no kubeconfig.
 */
class ComponentListenerTest {

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @Test
    void servesTheSameApiWithoutTlsOnASecondLoopbackPort(@TempDir Path dir) throws IOException {
        try (ApiServer server = ApiServer.builder().config(ApiServerConfig.defaults().withTls(true))
                .componentListener().build().start();
                KubeClients clients = KubeClients.create()) {
            assertThat(server.url()).startsWith("https://127.0.0.1:");
            assertThat(server.componentUrl()).startsWith("http://127.0.0.1:").isNotEqualTo(server.url())
                    .doesNotEndWith(":" + server.port());

            KubernetesClient overTls = clients.client(server.url(), server.adminToken(), server.caCertificatePem());
            KubernetesClient plain = clients.client(server.componentUrl(), server.adminToken(), null);
            plain.configMaps().resource(new ConfigMapBuilder().withNewMetadata().withName("written-plain")
                    .endMetadata().withData(Map.of("a", "b")).build()).create();
            assertThat(overTls.configMaps().withName("written-plain").get().getData()).containsEntry("a", "b");

            String kubeconfig = Files.readString(server.writeKubeconfig(dir.resolve("kubeconfig")));
            assertThat(kubeconfig).contains(server.url()).doesNotContain(server.componentUrl());
        }
    }

    @Test
    void authenticatesAndAuthorizesAsTheHttpsPort() throws Exception {
        try (ApiServer server = ApiServer.builder().config(ApiServerConfig.defaults().withTls(true))
                .componentListener().build().start();
                KubeClients clients = KubeClients.create()) {
            HttpResponse<String> anonymous = get(server.componentUrl() + "/api/v1/namespaces", null);
            assertThat(anonymous.statusCode()).isEqualTo(401);
            assertThat(anonymous.body()).contains("\"reason\":\"Unauthorized\"");
            assertThat(get(server.componentUrl() + "/api/v1/namespaces", "not-a-token").statusCode()).isEqualTo(401);
            assertThat(get(server.componentUrl() + "/api/v1/namespaces", server.adminToken()).statusCode())
                    .isEqualTo(200);

            // a plugin bound to node n1 may write only n1's ResourceSlices, on either port
            String pluginToken = server.issueToken(new UserInfo("system:serviceaccount:dra:plugin", "",
                    List.of("system:serviceaccounts", "system:authenticated"),
                    Map.of(UserInfo.NODE_NAME_EXTRA, List.of("n1"))));
            for (String url : List.of(server.componentUrl(), server.url())) {
                KubernetesClient plugin = clients.client(url, pluginToken, server.caCertificatePem());
                assertThatThrownBy(() -> plugin.resource(new ResourceSliceBuilder().withNewMetadata()
                        .withName("n2-slice").endMetadata().withNewSpec().withDriver("d.example.com")
                        .withNodeName("n2").withNewPool().withName("n2").withGeneration(1L)
                        .withResourceSliceCount(1L).endPool().endSpec().build()).create())
                        .as(url).hasMessageContaining("this user running on node 'n1' may not modify "
                                + "resourceslices on node 'n2'");
            }
        }
    }

    @Test
    void aRestartListensOnTheSameComponentPort() {
        ApiServer old = ApiServer.builder().config(ApiServerConfig.defaults().withTls(true)).componentListener()
                .build().start();
        ApiServer restarted = null;
        try (KubeClients clients = KubeClients.create()) {
            KubernetesClient plain = clients.client(old.componentUrl(), old.adminToken(), null);
            plain.configMaps().resource(new ConfigMapBuilder().withNewMetadata().withName("kept").endMetadata()
                    .build()).create();
            old.close();
            restarted = ApiServer.builder().config(ApiServerConfig.defaults().withTls(true)).componentListener()
                    .restartOf(old).build().start();

            assertThat(restarted.componentUrl()).isEqualTo(old.componentUrl());
            assertThat(plain.configMaps().withName("kept").get()).isNotNull();
        } finally {
            old.close();
            if (restarted != null) {
                restarted.close();
            }
        }
    }

    @Test
    void withoutTlsOrWithoutTheListenerTheComponentsUseTheOnePort() {
        try (ApiServer plain = ApiServer.builder().config(ApiServerConfig.defaults()).componentListener().build()
                .start();
                ApiServer tls = ApiServer.builder().config(ApiServerConfig.defaults().withTls(true)).build()
                        .start()) {
            assertThat(plain.componentUrl()).isEqualTo(plain.url()).startsWith("http://");
            assertThat(tls.componentUrl()).isEqualTo(tls.url()).startsWith("https://");
        }
    }

    private static HttpResponse<String> get(String url, String token) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).GET();
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }
}
