package io.kdra.kube.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.dsl.ExecWatch;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Requests, watches and exec WebSockets of {@link KubeClients}' clients against a stand-in API server whose exec
 * ends as soon as it is upgraded, as kdra's kubelets end {@code env}.
 */
class KubeClientsStreamsTest {

    private static final String TOKEN = "secret-token";
    private static final String SUCCESS = "{\"metadata\":{},\"status\":\"Success\"}";

    private static Vertx vertx;
    private static HttpServer server;
    private static KubeClients clients;
    private static KubernetesClient client;
    private static final List<String> authorizations = new CopyOnWriteArrayList<>();
    private static final List<String> watchUpgrades = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void start() {
        vertx = Vertx.vertx();
        server = vertx.createHttpServer(new HttpServerOptions().setHost("127.0.0.1").setPort(0)
                        .setWebSocketSubProtocols(List.of("v4.channel.k8s.io")))
                .requestHandler(KubeClientsStreamsTest::serve).listen().await();
        clients = KubeClients.create();
        client = clients.client("http://127.0.0.1:" + server.actualPort(), TOKEN, null);
    }

    @AfterAll
    static void stop() {
        clients.close();
        server.close().await();
        vertx.close().await();
    }

    private static void serve(HttpServerRequest request) {
        authorizations.add(String.valueOf(request.getHeader("Authorization")));
        if ("true".equals(request.getParam("watch"))) {
            watchUpgrades.add(String.valueOf(request.getHeader("Upgrade")));
            if (request.headers().contains("Upgrade")) {
                request.response().setStatusCode(400).end();
                return;
            }
            request.response().setChunked(true).putHeader("Content-Type", "application/json")
                    .write("{\"type\":\"ADDED\",\"object\":{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":"
                            + "{\"name\":\"watched\",\"namespace\":\"default\",\"resourceVersion\":\"2\"}}}\n");
        } else if (request.path().endsWith("/exec")) {
            request.toWebSocket().onSuccess(socket -> {
                socket.writeBinaryMessage(Buffer.buffer().appendByte((byte) 1).appendString("HOSTNAME=p\n"));
                socket.writeBinaryMessage(Buffer.buffer().appendByte((byte) 3).appendString(SUCCESS));
                socket.close((short) 1000);
            });
        } else if (request.path().endsWith("/pods/p")) {
            json(request, "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\","
                    + "\"namespace\":\"default\"},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"i\"}]}}");
        } else {
            json(request, "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"default\"}}");
        }
    }

    private static void json(HttpServerRequest request, String body) {
        request.response().putHeader("Content-Type", "application/json").end(body);
    }

    @Test
    void anExecThatEndsAtOnceAlwaysOpensAndDeliversItsOutput() throws Exception {
        for (int i = 0; i < 300; i++) {
            try (ExecWatch watch = client.pods().withName("p").inContainer("c").redirectingOutput().exec("env")) {
                assertThat(new String(watch.getOutput().readAllBytes(), StandardCharsets.UTF_8))
                        .as("exec %d", i).isEqualTo("HOSTNAME=p\n");
                assertThat(watch.exitCode().get(30, TimeUnit.SECONDS)).isZero();
            }
        }
        assertThat(authorizations).isNotEmpty().allMatch(("Bearer " + TOKEN)::equals);
    }

    /** As client-go's: a streamed GET on the shared Vert.x, not a WebSocket and its JDK client and threads. */
    @Test
    void watchesAreHttpStreams() throws Exception {
        CompletableFuture<Pod> added = new CompletableFuture<>();
        try (Watch watch = client.pods().watch(new Watcher<>() {
            @Override
            public void eventReceived(Action action, Pod pod) {
                added.complete(pod);
            }

            @Override
            public void onClose(WatcherException cause) {
            }
        })) {
            assertThat(added.get(30, TimeUnit.SECONDS).getMetadata().getName()).isEqualTo("watched");
        }
        assertThat(watchUpgrades).as("the Upgrade header of each watch request").isNotEmpty().containsOnly("null");
    }

    @Test
    void requestsCarryTheTokenToo() {
        authorizations.clear();
        assertThat(client.namespaces().withName("default").get().getMetadata().getName()).isEqualTo("default");
        assertThat(authorizations).containsExactly("Bearer " + TOKEN);
    }
}
