package io.kdra.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.kdra.apiserver.json.Json;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Seeded random query strings on lists and watches: known parameters with valid, garbage, overlong and badly escaped
 * values, sent as raw bytes (a client library would refuse to send most of them). Each answer comes promptly; an
 * error is a Status whose code is the HTTP status and whose message is not empty; nothing is a 5xx.
 */
class QueryFuzzTest extends ServerTestBase {

    private static final long SEED = 20261206L;
    private static final int CASES = 400;
    private static final List<String> PARAMETERS = List.of("labelSelector", "fieldSelector", "resourceVersion",
            "resourceVersionMatch", "timeoutSeconds", "limit", "continue", "allowWatchBookmarks", "sendInitialEvents",
            "fieldValidation", "pretty", "watch", "dryRun");
    private static final List<String> VALID = List.of("app%3Dx", "app%20in%20(a%2Cb)", "!app", "metadata.name%3Dx",
            "metadata.namespace!%3Ddefault", "0", "1", "5", "true", "false", "NotOlderThan", "Exact", "Strict", "");
    private static final List<String> COLLECTIONS = List.of("/api/v1/namespaces/default/configmaps",
            "/api/v1/pods", "/apis/resource.k8s.io/v1/namespaces/default/resourceclaims",
            "/apis/resource.k8s.io/v1beta1/resourceslices");

    /** How many answers had each HTTP status. */
    private static final Map<Integer, Integer> STATUSES = new ConcurrentSkipListMap<>();

    @Test
    void randomQueriesGetAnAnswerOrAStatusNamingTheProblem() throws Exception {
        Random random = new Random(SEED);
        List<String> paths = new ArrayList<>();
        for (int i = 0; i < CASES; i++) {
            boolean watch = random.nextInt(4) == 0;
            // a watch (also a list the fuzzed watch parameter turns into one) ends after a second: the first value
            // of a repeated parameter counts, so a fuzzed timeoutSeconds is ignored (HostileRequestTest tries those)
            StringBuilder query = new StringBuilder(watch ? "watch=1&timeoutSeconds=1" : "timeoutSeconds=1");
            int parameters = 1 + random.nextInt(4);
            for (int p = 0; p < parameters; p++) {
                query.append('&').append(PARAMETERS.get(random.nextInt(PARAMETERS.size()))).append('=')
                        .append(value(random));
            }
            paths.add(COLLECTIONS.get(random.nextInt(COLLECTIONS.size())) + "?" + query);
        }
        ExecutorService clients = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> cases = new ArrayList<>();
            for (int i = 0; i < paths.size(); i++) {
                String path = paths.get(i);
                String name = "case " + i + ": GET " + (path.length() > 500 ? path.substring(0, 500) + "..." : path);
                cases.add(clients.submit(() -> {
                    check(name, path, get(path));
                    return null;
                }));
            }
            for (Future<?> done : cases) {
                done.get();
            }
        } finally {
            clients.shutdownNow();
        }
        // the generator reaches both sides: answers and refusals
        assertThat(STATUSES).as("answers by status").containsKeys(200, 400);
        assertThat(get("/readyz").status).isEqualTo(200);
    }

    private static void check(String name, String path, Answer answer) {
        STATUSES.merge(answer.status, 1, Integer::sum);
        assertThat(answer.status).as("%s -> %s", name, answer.raw).isIn(200, 400, 410, 422);
        if (answer.status != 200) {
            JsonNode status = Json.parse(answer.body.getBytes(StandardCharsets.UTF_8));
            assertThat(status.path("kind").asString()).as(name).isEqualTo("Status");
            assertThat(status.path("code").asInt()).as(name).isEqualTo(answer.status);
            assertThat(status.path("message").asString()).as(name).isNotBlank();
        }
    }

    private static String value(Random random) {
        return switch (random.nextInt(7)) {
            case 0, 1 -> VALID.get(random.nextInt(VALID.size()));
            case 2 -> randomPrintable(random, 1 + random.nextInt(20));
            case 3 -> List.of("%", "%4", "%zz", "%G0", "a%2", "%%", "%e0%a4%a", "%ff%fe").get(random.nextInt(8));
            case 4 -> encodedBytes(random, 1 + random.nextInt(12));
            case 5 -> List.of("-1", "99999999999999999999", "1e3", "0x10", " 1", "NaN").get(random.nextInt(6));
            default -> "a".repeat(1000 + random.nextInt(20_000));
        };
    }

    /** Printable ASCII except what would end the query or the request line. */
    private static String randomPrintable(Random random, int length) {
        StringBuilder text = new StringBuilder();
        while (text.length() < length) {
            char c = (char) (33 + random.nextInt(94));
            if (c != '&' && c != '#' && c != '%') {
                text.append(c);
            }
        }
        return text.toString();
    }

    /** Random bytes, escaped: often not UTF-8. */
    private static String encodedBytes(Random random, int length) {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < length; i++) {
            text.append(String.format("%%%02X", random.nextInt(256)));
        }
        return text.toString();
    }

    private record Answer(int status, String body, String raw) {}

    private static Answer get(String path) throws IOException {
        URI url = URI.create(fixture.server.url());
        try (Socket socket = new Socket(url.getHost(), url.getPort())) {
            socket.setSoTimeout(20_000);
            OutputStream out = socket.getOutputStream();
            out.write(("GET " + path + " HTTP/1.1\r\nHost: " + url.getAuthority() + "\r\nAuthorization: Bearer "
                    + fixture.server.adminToken() + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            String raw = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            int status = Integer.parseInt(raw.substring(9, 12));
            int bodyStart = raw.indexOf("\r\n\r\n") + 4;
            String body = raw.substring(bodyStart);
            if (raw.substring(0, bodyStart).toLowerCase().contains("transfer-encoding: chunked")) {
                body = dechunk(body);
            }
            return new Answer(status, body, raw.length() > 2000 ? raw.substring(0, 2000) + "..." : raw);
        }
    }

    private static String dechunk(String chunked) {
        StringBuilder body = new StringBuilder();
        int at = 0;
        while (at < chunked.length()) {
            int lineEnd = chunked.indexOf("\r\n", at);
            int size = Integer.parseInt(chunked.substring(at, lineEnd).trim(), 16);
            if (size == 0) {
                break;
            }
            body.append(chunked, lineEnd + 2, lineEnd + 2 + size);
            at = lineEnd + 2 + size + 2;
        }
        return body.toString();
    }
}
