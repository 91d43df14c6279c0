package io.kdra.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.kdra.apiserver.json.Json;
import io.kdra.apiserver.protobuf.KubeProtobuf;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Seeded byte-level mutations of valid request bodies (truncated, bytes inserted, deleted, repeated or replaced by
 * JSON punctuation, wrapped in deep nesting), sent as JSON, YAML and protobuf creates and as the four patch types.
 * Every answer is a success or a client error: an error is a Status with the HTTP status as its code and a message;
 * a success is what a read gives back (the stored object), never a 5xx.
 */
class BodyFuzzTest {

    private static final long SEED = 20261206L;
    private static final int CASES_PER_KIND = 150;
    private static final String CONFIGMAPS = "/api/v1/namespaces/default/configmaps";
    private static final byte[] PUNCTUATION = "{}[]\":,\\ \n-#&*!|>'%@`".getBytes(StandardCharsets.US_ASCII);

    private static ServerFixture fixture;
    /** How many answers of the running test had each HTTP status. */
    private static final Map<Integer, Integer> OUTCOMES = new TreeMap<>();

    @BeforeAll
    static void start() {
        fixture = new ServerFixture();
        fixture.send("POST", CONFIGMAPS, "application/json",
                "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"target\",\"labels\":{\"a\":\"b\"}},"
                        + "\"data\":{\"k\":\"v\"}}");
    }

    @AfterAll
    static void stop() {
        fixture.close();
    }

    @BeforeEach
    void clearOutcomes() {
        OUTCOMES.clear();
    }

    /** The mutations reach both sides: bodies still accepted and bodies refused. */
    @AfterEach
    void bothOutcomesWereReached() {
        assertThat(OUTCOMES.keySet()).as("answers by status").anyMatch(code -> code < 300)
                .anyMatch(code -> code >= 400);
    }

    @Test
    void mutatedJsonCreates() {
        Random random = new Random(SEED);
        for (int i = 0; i < CASES_PER_KIND; i++) {
            String[] object = MalformedInputTest.CORE_OBJECTS.get(random.nextInt(MalformedInputTest.CORE_OBJECTS.size()));
            byte[] body = named(object[2], "json-" + i).getBytes(StandardCharsets.UTF_8);
            create("json " + i, object[0], "application/json", mutate(body, random));
        }
    }

    @Test
    void mutatedYamlCreates() {
        Random random = new Random(SEED + 1);
        for (int i = 0; i < CASES_PER_KIND; i++) {
            String[] object = MalformedInputTest.CORE_OBJECTS.get(random.nextInt(MalformedInputTest.CORE_OBJECTS.size()));
            byte[] body = Json.yaml(Json.parse(named(object[2], "yaml-" + i).getBytes(StandardCharsets.UTF_8)));
            create("yaml " + i, object[0], "application/yaml", mutate(body, random));
        }
    }

    @Test
    void mutatedProtobufCreates() {
        Random random = new Random(SEED + 2);
        for (int i = 0; i < CASES_PER_KIND; i++) {
            ObjectNode configMap = (ObjectNode) Json.parse(("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":"
                    + "{\"name\":\"proto-" + i + "\",\"labels\":{\"a\":\"b\"}},\"data\":{\"k\":\"v\",\"n\":\"" + i
                    + "\"}}").getBytes(StandardCharsets.UTF_8));
            byte[] body = KubeProtobuf.encode(configMap);
            // one in five is sent intact: a control that must be created and read back
            byte[] mutated = random.nextInt(5) == 0 ? body : mutate(body, random);
            // mostly keep the magic prefix, so the mutation reaches the message decoder
            if (random.nextInt(4) != 0 && mutated.length >= 4) {
                System.arraycopy(body, 0, mutated, 0, 4);
            }
            create("protobuf " + i, CONFIGMAPS, KubeProtobuf.MEDIA_TYPE, mutated);
        }
    }

    @Test
    void mutatedPatches() {
        Random random = new Random(SEED + 3);
        List<String[]> patches = List.of(
                new String[] {"application/merge-patch+json", "{\"metadata\":{\"labels\":{\"c\":\"d\"}},\"data\":{\"x\":\"y\"}}"},
                new String[] {"application/strategic-merge-patch+json", "{\"metadata\":{\"labels\":{\"$patch\":\"replace\","
                    + "\"e\":\"f\"}},\"data\":{\"k\":null}}"},
                new String[] {"application/json-patch+json", "[{\"op\":\"add\",\"path\":\"/data/z\",\"value\":\"1\"},"
                    + "{\"op\":\"remove\",\"path\":\"/metadata/labels/a\"},{\"op\":\"move\",\"from\":\"/data/k\",\"path\":"
                    + "\"/data/m\"}]"},
                new String[] {"application/apply-patch+yaml", "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":"
                    + "{\"name\":\"target\"},\"data\":{\"k\":\"applied\"}}"});
        for (int i = 0; i < CASES_PER_KIND * 2; i++) {
            String[] patch = patches.get(random.nextInt(patches.size()));
            String query = patch[0].startsWith("application/apply") ? "?fieldManager=fuzz&force=true" : "";
            HttpResponse<String> response = send("PATCH", CONFIGMAPS + "/target" + query, patch[0],
                    mutate(patch[1].getBytes(StandardCharsets.UTF_8), random));
            check("patch " + i + " " + patch[0], response, 200);
        }
    }

    private static void create(String name, String collection, String contentType, byte[] body) {
        HttpResponse<String> response = send("POST", collection, contentType, body);
        check(name, response, 201);
        if (response.statusCode() == 201) {
            JsonNode created = Json.parse(response.body().getBytes(StandardCharsets.UTF_8));
            String path = collection + "/" + created.at("/metadata/name").asString();
            HttpResponse<String> read = fixture.send("GET", path, null, null);
            assertThat(read.statusCode()).as("%s: GET %s after %s", name, path, response.body()).isEqualTo(200);
            assertThat(Json.parse(read.body().getBytes(StandardCharsets.UTF_8))).as(name).isEqualTo(created);
            fixture.send("DELETE", path + "?gracePeriodSeconds=0", null, null);
        }
    }

    private static void check(String name, HttpResponse<String> response, int success) {
        OUTCOMES.merge(response.statusCode(), 1, Integer::sum);
        assertThat(response.statusCode()).as("%s: %s", name, response.body()).isIn(success, 400, 404, 409, 413, 415,
                422);
        if (response.statusCode() != success) {
            JsonNode status = Json.parse(response.body().getBytes(StandardCharsets.UTF_8));
            assertThat(status.path("kind").asString()).as("%s: %s", name, response.body()).isEqualTo("Status");
            assertThat(status.path("code").asInt()).as(name).isEqualTo(response.statusCode());
            assertThat(status.path("message").asString()).as(name).isNotBlank();
        }
    }

    private static String named(String json, String name) {
        ObjectNode object = (ObjectNode) Json.parse(json.getBytes(StandardCharsets.UTF_8));
        ObjectNode metadata = (ObjectNode) object.get("metadata");
        metadata.put("name", name);
        // an owner that does not exist would have the garbage collector delete the object before it is read back
        metadata.remove("ownerReferences");
        return Json.string(object);
    }

    /** One to three byte-level changes. */
    static byte[] mutate(byte[] body, Random random) {
        byte[] bytes = body;
        for (int changes = 1 + random.nextInt(3); changes > 0 && bytes.length > 0; changes--) {
            int at = random.nextInt(bytes.length);
            bytes = switch (random.nextInt(6)) {
                case 0 -> Arrays.copyOf(bytes, at);
                case 1 -> splice(bytes, at, at, new byte[] {(byte) random.nextInt(256)});
                case 2 -> splice(bytes, at, Math.min(bytes.length, at + 1 + random.nextInt(16)), new byte[0]);
                case 3 -> splice(bytes, at, at, Arrays.copyOfRange(bytes, at, Math.min(bytes.length,
                        at + 1 + random.nextInt(32))));
                case 4 -> splice(bytes, at, at + 1, new byte[] {PUNCTUATION[random.nextInt(PUNCTUATION.length)]});
                default -> {
                    int depth = 1 + random.nextInt(2000);
                    yield splice(bytes, at, at, ("[".repeat(depth) + "]".repeat(depth))
                            .getBytes(StandardCharsets.US_ASCII));
                }
            };
        }
        return bytes;
    }

    private static byte[] splice(byte[] bytes, int from, int to, byte[] insert) {
        byte[] result = new byte[bytes.length - (to - from) + insert.length];
        System.arraycopy(bytes, 0, result, 0, from);
        System.arraycopy(insert, 0, result, from, insert.length);
        System.arraycopy(bytes, to, result, from + insert.length, bytes.length - to);
        return result;
    }

    private static HttpResponse<String> send(String method, String path, String contentType, byte[] body) {
        try {
            return fixture.http.send(HttpRequest.newBuilder(URI.create(fixture.server.url() + path))
                    .header("Authorization", "Bearer " + fixture.server.adminToken())
                    .header("Content-Type", contentType)
                    .method(method, HttpRequest.BodyPublishers.ofByteArray(body)).build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
