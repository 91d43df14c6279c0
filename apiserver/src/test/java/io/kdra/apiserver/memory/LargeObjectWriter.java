package io.kdra.apiserver.memory;

import io.kdra.apiserver.ApiServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * The program {@link MemoryPressureTest} runs in a JVM of its own with a small heap: an API server, and one client
 * that rewrites a large ConfigMap many times and then deletes it. Prints one {@code RESULT} line the test reads.
 *
 * <p>Arguments: the history's byte budget ({@code default} for the server's), the number of updates, the ConfigMap's
 * size in KiB.
 */
public final class LargeObjectWriter {

    private LargeObjectWriter() {}

    public static void main(String[] args) throws Exception {
        ApiServer.Builder builder = ApiServer.builder();
        if (!args[0].equals("default")) {
            builder.historyBytes(Long.parseLong(args[0]));
        }
        int updates = Integer.parseInt(args[1]);
        int kib = Integer.parseInt(args[2]);
        try (ApiServer server = builder.build().start()) {
            HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
            String path = "/api/v1/namespaces/default/configmaps";
            String payload = "x".repeat(kib * 1024 - 100);
            int failures = 0;
            for (int i = 0; i <= updates; i++) {
                String body = "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"big\"},"
                        + "\"data\":{\"n\":\"" + i + "\",\"p\":\"" + payload + "\"}}";
                HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(server.url() + path
                        + (i == 0 ? "" : "/big"))).header("Authorization", "Bearer " + server.adminToken())
                        .header("Content-Type", "application/json").timeout(Duration.ofSeconds(60));
                request = i == 0 ? request.POST(HttpRequest.BodyPublishers.ofString(body))
                        : request.PUT(HttpRequest.BodyPublishers.ofString(body));
                int status = http.send(request.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
                if (status >= 300) {
                    failures++;
                }
            }
            int deleted = http.send(HttpRequest.newBuilder(URI.create(server.url() + path + "/big"))
                    .header("Authorization", "Bearer " + server.adminToken()).DELETE().build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode();
            HttpResponse<String> ready = http.send(HttpRequest.newBuilder(URI.create(server.url() + "/readyz"))
                    .build(), HttpResponse.BodyHandlers.ofString());
            System.gc();
            Runtime runtime = Runtime.getRuntime();
            System.out.printf("RESULT failures=%d deleted=%d readyz=%d historyBytes=%d usedHeap=%d maxHeap=%d%n",
                    failures, deleted, ready.statusCode(), server.store().historyBytes(),
                    runtime.totalMemory() - runtime.freeMemory(), runtime.maxMemory());
        }
    }
}
