package io.kdra.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.kdra.apiserver.json.Json;
import io.kdra.apiserver.storage.Store;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

/**
 * A watch that replays a long history, through a selector that makes the server read every replayed state, shares
 * its event loop: other clients are answered while it replays, not after.
 */
class WatchReplayTest {

    private static final int CHANGES = 40_000;

    @Test
    void otherRequestsAreAnsweredWhileALongHistoryReplays() throws Exception {
        try (ServerFixture fixture = new ServerFixture(ApiServerConfig.defaults().withEventLoops(1))) {
            Store store = fixture.server.store();
            long start = store.resourceVersion();
            String payload = "x".repeat(1024);
            for (int i = 0; i < CHANGES; i++) {
                ObjectNode configMap = configMap(i, payload);
                store.write("/configmaps", "replay", "replayed", false, current -> Store.Change.put(configMap));
            }
            HttpClient watcher = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            HttpClient other = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            URI version = URI.create(fixture.server.url() + "/version");
            other.send(HttpRequest.newBuilder(version).build(), HttpResponse.BodyHandlers.discarding());
            AtomicLong lines = new AtomicLong();
            long began = System.nanoTime();

            CompletableFuture<Void> replayed = watcher.sendAsync(HttpRequest.newBuilder(URI.create(
                    fixture.server.url() + "/api/v1/namespaces/replay/configmaps?watch=1&labelSelector=app%3Dx"
                            + "&resourceVersion=" + start)).header("Authorization", "Bearer "
                            + fixture.server.adminToken()).build(), HttpResponse.BodyHandlers.ofLines())
                    .thenAccept(response -> response.body().takeWhile(line -> lines.incrementAndGet() < CHANGES)
                            .forEach(line -> {}));
            long slowest = 0;
            while (!replayed.isDone()) {
                long sent = System.nanoTime();
                other.send(HttpRequest.newBuilder(version).timeout(Duration.ofSeconds(60)).build(),
                        HttpResponse.BodyHandlers.discarding());
                slowest = Math.max(slowest, System.nanoTime() - sent);
            }
            replayed.get(2, TimeUnit.MINUTES);
            long replay = System.nanoTime() - began;

            assertThat(lines.get()).isEqualTo(CHANGES);
            assertThat(slowest).as("slowest answer during the replay, against the replay's %d ms",
                    TimeUnit.NANOSECONDS.toMillis(replay)).isLessThan(replay / 4);
        }
    }

    private static ObjectNode configMap(int i, String payload) {
        ObjectNode configMap = Json.object();
        configMap.put("apiVersion", "v1").put("kind", "ConfigMap");
        configMap.putObject("metadata").put("name", "replayed").put("namespace", "replay")
                .putObject("labels").put("app", "x");
        configMap.putObject("data").put("n", Integer.toString(i)).put("p", payload);
        return configMap;
    }
}
