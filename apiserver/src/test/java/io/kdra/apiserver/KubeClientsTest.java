package io.kdra.apiserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.kdra.kube.client.KubeClients;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@link KubeClients} against a running API server, over TLS as a cluster's components reach it. */
class KubeClientsTest {

    private static final int CLIENTS = 50;

    private static ApiServer server;

    @BeforeAll
    static void start() {
        server = ApiServer.builder().config(ApiServerConfig.defaults().withTls(true)).build().start();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void manyClientsWorkOnOneSharedEventLoopGroup() {
        Set<Thread> eventLoopsBefore = eventLoopThreads();
        try (KubeClients clients = KubeClients.create()) {
            List<KubernetesClient> built = new ArrayList<>();
            for (int i = 0; i < CLIENTS; i++) {
                built.add(clients.client(server.url(), server.adminToken(), server.caCertificatePem()));
            }
            for (int i = 0; i < CLIENTS; i++) {
                built.get(i).configMaps().resource(new ConfigMapBuilder().withNewMetadata().withName("client-" + i)
                        .endMetadata().withData(Map.of("index", Integer.toString(i))).build()).create();
            }
            for (KubernetesClient client : built) {
                assertThat(client.configMaps().inNamespace("default").list().getItems())
                        .filteredOn(map -> map.getMetadata().getName().startsWith("client-"))
                        .hasSize(CLIENTS);
            }

            Set<Thread> newEventLoops = eventLoopThreads();
            newEventLoops.removeAll(eventLoopsBefore);
            // one Vert.x instance has at most 2 event loops per core; one per client would be 50 at least
            assertThat(newEventLoops).isNotEmpty()
                    .hasSizeLessThanOrEqualTo(2 * Runtime.getRuntime().availableProcessors());
        }
        // Netty's threads end shortly after close() returns
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                assertThat(eventLoopThreads()).allSatisfy(thread -> assertThat(eventLoopsBefore).contains(thread)));
    }

    @Test
    void clientsShareOneSerializationSoTheModelIsIntrospectedOnce() {
        try (KubeClients clients = KubeClients.create()) {
            KubernetesClient first = clients.client(server.url(), server.adminToken(), server.caCertificatePem());
            KubernetesClient second = clients.client(server.url(), server.adminToken(), server.caCertificatePem());
            assertThat(second.getKubernetesSerialization()).isSameAs(first.getKubernetesSerialization());
            first.configMaps().resource(new ConfigMapBuilder().withNewMetadata().withName("shared-serialization")
                    .endMetadata().withData(Map.of("k", "v")).build()).create();
            assertThat(second.configMaps().withName("shared-serialization").get().getData()).containsEntry("k", "v");
        }
    }

    @Test
    void closeClosesEveryClientItBuiltAndAClientMayBeClosedFirst() {
        KubernetesClient early;
        KubernetesClient late;
        try (KubeClients clients = KubeClients.create()) {
            early = clients.client(server.url(), server.adminToken(), server.caCertificatePem());
            late = clients.client(server.url(), server.adminToken(), server.caCertificatePem());
            assertThat(early.namespaces().withName("default").get()).isNotNull();
            early.close();
            assertThat(late.namespaces().withName("default").get()).isNotNull();
        }
        assertThatThrownBy(() -> late.namespaces().withName("default").get()).isInstanceOf(RuntimeException.class);
    }

    @Test
    void aWrongTokenIsTheServersAnswerAtOnce() {
        try (KubeClients clients = KubeClients.create()) {
            KubernetesClient client = clients.client(server.url(), "not-a-token", server.caCertificatePem());

            assertThatThrownBy(() -> client.namespaces().list())
                    .isInstanceOfSatisfying(KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(401));
        }
    }

    @Test
    void noClientAfterClose() {
        KubeClients clients = KubeClients.create();
        clients.close();

        assertThatThrownBy(() -> clients.client(server.url(), server.adminToken(), server.caCertificatePem()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("these clients are closed");
    }

    private static Set<Thread> eventLoopThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(thread -> thread.getName().startsWith("vert.x-eventloop-thread-"))
                .collect(Collectors.toSet());
    }
}
