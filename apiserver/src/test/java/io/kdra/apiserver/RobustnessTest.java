package io.kdra.apiserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class RobustnessTest {

    private static ServerFixture fixture;

    @BeforeAll
    static void start() {
        fixture = new ServerFixture(ApiServerConfig.defaults().withMaxBodyBytes(1024 * 1024).withWatchLimits(1000, 20));
    }

    @AfterAll
    static void stop() {
        fixture.close();
    }

    @Test
    void malformedJsonIsABadRequest() {
        var response = fixture.send("POST", "/api/v1/namespaces/default/configmaps", "application/json", "{\"kind\":");
        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(response.body()).contains("\"kind\":\"Status\"", "\"reason\":\"BadRequest\"",
                "couldn't get version/kind; json parse error");
    }

    @Test
    void wrongKindForTheUrlIsABadRequest() {
        var response = fixture.send("POST", "/api/v1/namespaces/default/pods", "application/json",
                "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"x\"}}");
        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(response.body()).contains("ConfigMap in version \\\"v1\\\" cannot be handled as a Pod");
        var group = fixture.send("POST", "/api/v1/namespaces/default/configmaps", "application/json",
                "{\"apiVersion\":\"apps/v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"x\"}}");
        assertThat(group.statusCode()).isEqualTo(400);
        assertThat(group.body()).contains(
                "the API version in the data (apps/v1) does not match the expected API version (v1)");
    }

    @Test
    void unknownFieldsAreRejectedWhenStrictAndWarnedOtherwise() {
        String body = "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"strict\",\"lables\":{}},"
                + "\"spek\":1}";
        var strict = fixture.send("POST", "/api/v1/namespaces/default/configmaps?fieldValidation=Strict",
                "application/json", body);
        assertThat(strict.statusCode()).isEqualTo(400);
        assertThat(strict.body()).contains(
                "ConfigMap in version \\\"v1\\\" cannot be handled as a ConfigMap: strict decoding error: "
                        + "unknown field \\\"metadata.lables\\\", unknown field \\\"spek\\\"");
        var warn = fixture.send("POST", "/api/v1/namespaces/default/configmaps", "application/json", body);
        assertThat(warn.statusCode()).isEqualTo(201);
        assertThat(warn.headers().allValues("Warning")).contains("299 - \"unknown field \\\"spek\\\"\"");
    }

    @Test
    void unknownFieldsBelowTheTopLevelAreFoundInEveryWrite() {
        String pod = "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"%s\"},\"spec\":"
                + "{\"containers\":[{\"name\":\"c\",\"image\":\"i\",\"imagee\":\"typo\"}],"
                + "\"resourceClaims\":[{\"name\":\"gpu\",\"resourceClaimName\":\"c\",\"sourc\":{}}]}}";
        String pods = "/api/v1/namespaces/default/pods";

        var strict = fixture.send("POST", pods + "?fieldValidation=Strict", "application/json", pod.formatted("strict"));
        assertThat(strict.statusCode()).isEqualTo(400);
        assertThat(strict.body()).contains("Pod in version \\\"v1\\\" cannot be handled as a Pod: strict decoding "
                + "error: unknown field \\\"spec.containers[0].imagee\\\", "
                + "unknown field \\\"spec.resourceClaims[0].sourc\\\"");

        var warned = fixture.send("POST", pods, "application/json", pod.formatted("warned"));
        assertThat(warned.statusCode()).isEqualTo(201);
        assertThat(warned.headers().allValues("Warning")).containsExactly(
                "299 - \"unknown field \\\"spec.containers[0].imagee\\\"\"",
                "299 - \"unknown field \\\"spec.resourceClaims[0].sourc\\\"\"");
        assertThat(warned.body()).doesNotContain("imagee", "\"sourc\"").contains("\"image\":\"i\"");

        var ignored = fixture.send("POST", pods + "?fieldValidation=Ignore", "application/json", pod.formatted("ignored"));
        assertThat(ignored.statusCode()).isEqualTo(201);
        assertThat(ignored.headers().allValues("Warning")).isEmpty();
        assertThat(ignored.body()).doesNotContain("imagee");

        String typo = "{\"spec\":{\"containers\":[{\"name\":\"c\",\"imagePullPolicyy\":\"Always\"}]}}";
        var strictPatch = fixture.send("PATCH", pods + "/warned?fieldValidation=Strict",
                "application/strategic-merge-patch+json", typo);
        assertThat(strictPatch.statusCode()).isEqualTo(422);
        assertThat(strictPatch.body()).contains("\"message\":\" \\\"\\\" is invalid: patch: Invalid value: \\\"{",
                "\": strict decoding error: unknown field \\\"spec.containers[0].imagePullPolicyy\\\"",
                "\"reason\":\"Invalid\"", "\"field\":\"patch\"");
        var warnedPatch = fixture.send("PATCH", pods + "/warned", "application/strategic-merge-patch+json", typo);
        assertThat(warnedPatch.statusCode()).isEqualTo(200);
        assertThat(warnedPatch.headers().allValues("Warning"))
                .containsExactly("299 - \"unknown field \\\"spec.containers[0].imagePullPolicyy\\\"\"");
    }

    @Test
    void aRepeatedFieldIsReportedAsGoReportsItAndTheLastValueWins() {
        String body = "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"%s\","
                + "\"labels\":{\"a\":\"1\"},\"labels\":{\"a\":\"2\"}},\"extra\":1}";
        String configMaps = "/api/v1/namespaces/default/configmaps";

        var strict = fixture.send("POST", configMaps + "?fieldValidation=Strict", "application/json",
                body.formatted("repeated-strict"));
        assertThat(strict.statusCode()).isEqualTo(400);
        assertThat(strict.body()).contains("strict decoding error: duplicate field \\\"metadata.labels\\\", "
                + "unknown field \\\"extra\\\"");

        var warned = fixture.send("POST", configMaps, "application/json", body.formatted("repeated"));
        assertThat(warned.statusCode()).isEqualTo(201);
        assertThat(warned.headers().allValues("Warning")).containsExactly(
                "299 - \"duplicate field \\\"metadata.labels\\\"\"", "299 - \"unknown field \\\"extra\\\"\"");
        assertThat(warned.body()).contains("\"labels\":{\"a\":\"2\"}");
    }

    @Test
    void aValueOfTheWrongTypeIsABadRequestWhateverTheFieldValidation() {
        String claim = "{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceClaim\",\"metadata\":"
                + "{\"name\":\"typed\"},\"spec\":{\"devices\":{\"requests\":[{\"name\":\"gpu\",\"exactly\":"
                + "{\"deviceClassName\":\"gpu\",\"count\":\"2\"}}]}}}";

        var response = fixture.send("POST", "/apis/resource.k8s.io/v1/namespaces/default/resourceclaims"
                + "?fieldValidation=Ignore", "application/json", claim);

        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(response.body()).contains("\"reason\":\"BadRequest\"", "ResourceClaim in version \\\"v1\\\" "
                + "cannot be handled as a ResourceClaim: json: cannot unmarshal string into Go struct field "
                + "ExactDeviceRequest.spec.devices.requests.exactly.count of type int64");
        assertThat(fixture.send("GET", "/apis/resource.k8s.io/v1/namespaces/default/resourceclaims/typed", null, null)
                .statusCode()).isEqualTo(404);

        var binding = fixture.send("POST", "/api/v1/namespaces/default/pods/any/binding", "application/json",
                "{\"apiVersion\":\"v1\",\"kind\":\"Binding\",\"target\":{\"name\":[\"node-1\"]}}");
        assertThat(binding.statusCode()).isEqualTo(400);
        assertThat(binding.body()).contains("json: cannot unmarshal array into Go struct field ObjectReference.target.name"
                + " of type string");
    }

    @Test
    void oversizedBodiesAre413() {
        String big = "{\"data\":{\"k\":\"" + "x".repeat(1100 * 1024) + "\"}}";
        var response = fixture.send("POST", "/api/v1/namespaces/default/configmaps", "application/json", big);
        assertThat(response.statusCode()).isEqualTo(413);
        assertThat(response.body()).contains("\"reason\":\"RequestEntityTooLarge\"",
                "Request entity too large: limit is 1048576");
    }

    @Test
    void anOversizedChunkedBodyWithoutContentLengthIs413() throws IOException {
        URI url = URI.create(fixture.server.url());
        int limit = 1024 * 1024;
        try (Socket socket = new Socket(url.getHost(), url.getPort())) {
            socket.setSoTimeout(30_000);
            OutputStream out = socket.getOutputStream();
            out.write(("POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: " + url.getAuthority()
                    + "\r\nAuthorization: Bearer " + fixture.server.adminToken()
                    + "\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            byte[] chunk = new byte[64 * 1024];
            Arrays.fill(chunk, (byte) 'x');
            // one byte over the limit and no terminating chunk: the server must answer from the size alone, and
            // has read everything sent when it answers and closes
            for (int sent = 0; sent <= limit; ) {
                int size = Math.min(chunk.length, limit + 1 - sent);
                out.write((Integer.toHexString(size) + "\r\n").getBytes(StandardCharsets.US_ASCII));
                out.write(chunk, 0, size);
                out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
                sent += size;
            }
            out.flush();

            String response = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);

            assertThat(response).startsWith("HTTP/1.1 413 ").containsIgnoringCase("connection: close")
                    .contains("\"reason\":\"RequestEntityTooLarge\"", "Request entity too large: limit is 1048576");
        }
        assertThat(fixture.send("GET", "/api/v1/namespaces/default/configmaps", null, null).statusCode())
                .isEqualTo(200);
    }

    @Test
    void unknownResourcesAndMethodsGetStatuses() {
        var missing = fixture.send("GET", "/apis/example.com/v1/widgets", null, null);
        assertThat(missing.statusCode()).isEqualTo(404);
        assertThat(missing.body()).contains("the server could not find the requested resource");
        var object = fixture.send("GET", "/api/v1/namespaces/default/configmaps/absent", null, null);
        assertThat(object.statusCode()).isEqualTo(404);
        assertThat(object.body()).contains("configmaps \\\"absent\\\" not found");
        var method = fixture.send("PUT", "/api/v1/namespaces/default/configmaps", "application/json", "{}");
        assertThat(method.statusCode()).isEqualTo(405);
        var media = fixture.send("PATCH", "/api/v1/namespaces/default/configmaps/absent", "text/plain", "{}");
        assertThat(media.statusCode()).isEqualTo(415);
    }

    @Test
    void concurrentWritersGetConflictsAndLoseNoUpdate() throws Exception {
        var cms = fixture.client.configMaps().inNamespace("default");
        cms.resource(new ConfigMapBuilder().withNewMetadata().withName("counter").endMetadata()
                .withData(Map.of("n", "0")).build()).create();
        AtomicInteger conflicts = new AtomicInteger();
        AtomicInteger attempts = new AtomicInteger();
        int writers = 4;
        int increments = 25;
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        try {
            Future<?>[] futures = new Future<?>[writers];
            for (int w = 0; w < writers; w++) {
                futures[w] = pool.submit(() -> {
                    for (int i = 0; i < increments; i++) {
                        while (true) {
                            ConfigMap current = cms.withName("counter").get();
                            int n = Integer.parseInt(current.getData().get("n"));
                            current.getData().put("n", Integer.toString(n + 1));
                            attempts.incrementAndGet();
                            try {
                                cms.resource(current).update();
                                break;
                            } catch (KubernetesClientException e) {
                                assertThat(e.getCode()).isEqualTo(409);
                                assertThat(e.getMessage()).contains("the object has been modified; please apply "
                                        + "your changes to the latest version and try again");
                                conflicts.incrementAndGet();
                            }
                        }
                    }
                });
            }
            for (Future<?> future : futures) {
                future.get();
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(cms.withName("counter").get().getData()).containsEntry("n", Integer.toString(writers * increments));
        // every attempt either committed one increment or was refused with a conflict, none silently overwritten
        assertThat(attempts.get() - conflicts.get()).isEqualTo(writers * increments);
    }

    @Test
    void aSlowWatcherIsDroppedWithoutBlockingWriters() throws Exception {
        String ns = fixture.namespace();
        HttpRequest request = HttpRequest.newBuilder(URI.create(fixture.server.url() + "/api/v1/namespaces/" + ns
                + "/configmaps?watch=1")).header("Authorization", "Bearer " + fixture.server.adminToken()).build();
        HttpResponse<InputStream> response = fixture.http.send(request, HttpResponse.BodyHandlers.ofInputStream());
        java.util.concurrent.atomic.AtomicBoolean ended = new java.util.concurrent.atomic.AtomicBoolean();
        String payload = "x".repeat(512 * 1024);
        for (int i = 0; i < 100; i++) {
            fixture.client.configMaps().inNamespace(ns).resource(new ConfigMapBuilder().withNewMetadata()
                    .withName("cm-" + i).endMetadata().withData(Map.of("p", payload)).build()).create();
        }
        Thread reader = new Thread(() -> {
            try (InputStream stream = response.body()) {
                stream.transferTo(java.io.OutputStream.nullOutputStream());
                ended.set(true);
            } catch (java.io.IOException e) {
                ended.set(true);
            }
        });
        reader.start();
        await().atMost(Duration.ofSeconds(30)).untilTrue(ended);
        assertThat(fixture.client.configMaps().inNamespace(ns).list().getItems()).hasSize(100);
    }
}
