package io.kdra.apiserver;

import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.kdra.kube.client.Informers;
import io.kdra.kube.client.KubeClients;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** {@link Informers} outlive an API server that drops their first list, as a loaded one can. */
class InformersTest {

    @Test
    void anInformerWhoseFirstListFailsKeepsTryingUntilTheServerAnswers() throws Exception {
        AtomicInteger dropped = new AtomicInteger();

        try (ServerSocket dropping = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
                KubeClients clients = KubeClients.create()) {
            int port = dropping.getLocalPort();
            Thread acceptor = new Thread(() -> {
                while (!dropping.isClosed()) {
                    try (Socket connection = dropping.accept()) {
                        dropped.incrementAndGet();
                    } catch (IOException closed) {
                        return;
                    }
                }
            });
            acceptor.start();
            // built, not started: its token is known, its port is still the dropping socket's
            ApiServer server = ApiServer.builder().config(ApiServerConfig.defaults().withPort(port)).build();
            KubernetesClient client = clients.client("http://127.0.0.1:" + port, server.adminToken(), null);
            Set<String> seen = ConcurrentHashMap.newKeySet();
            SharedIndexInformer<ConfigMap> informer = Informers.inform(client.configMaps().inAnyNamespace(),
                    new ResourceEventHandler<>() {
                        @Override
                        public void onAdd(ConfigMap map) {
                            seen.add(map.getMetadata().getName());
                        }

                        @Override
                        public void onUpdate(ConfigMap old, ConfigMap map) {
                        }

                        @Override
                        public void onDelete(ConfigMap map, boolean finalStateUnknown) {
                        }
                    });
            await().atMost(Duration.ofSeconds(30)).until(() -> dropped.get() >= 1);
            dropping.close();
            acceptor.join();

            try {
                server.start();
                client.configMaps().inNamespace("default").resource(new ConfigMapBuilder()
                        .withNewMetadata().withName("after-the-drop").endMetadata().build()).create();

                await().atMost(Duration.ofSeconds(90)).until(() -> seen.contains("after-the-drop"));
            } finally {
                informer.close();
                server.close();
            }
        }
    }
}
