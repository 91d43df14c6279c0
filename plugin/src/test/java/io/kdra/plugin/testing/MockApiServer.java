package io.kdra.plugin.testing;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.http.Response;
import io.fabric8.mockwebserver.http.WebSocket;
import io.fabric8.mockwebserver.http.WebSocketListener;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The fabric8 mock API server in CRUD mode, plus the {@code spec.*} field selectors the real API server offers for
 * ResourceSlices ({@code spec.driver}, {@code spec.nodeName}, {@code spec.pool.name}), which the mock silently matches against nothing.
 * Lists apply them to the items; watches drop them and deliver all events, which is enough for code that only uses
 * watch events as a trigger to list again.
 */
public final class MockApiServer implements AutoCloseable {

    /** Shared by all servers, whose watches may still close after their server: its idle threads end by themselves. */
    private static final ExecutorService WATCH_CLOSERS = Executors.newCachedThreadPool(runnable -> {
        Thread thread = new Thread(runnable, "mock-watch-close");
        thread.setDaemon(true);
        return thread;
    });

    private final KubernetesMockServer server;
    private final KubernetesClient client;
    private final SpecFieldSelectors dispatcher = new SpecFieldSelectors();

    public MockApiServer() {
        server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), dispatcher, false);
        server.init();
        client = server.createClient();
    }

    public KubernetesClient client() {
        return client;
    }

    /**
     * Makes ResourceSlice creates and updates fail with 422 Invalid and this message, as validation of a real API
     * server would; {@code null} accepts them again.
     */
    public void rejectSliceWrites(String message) {
        dispatcher.rejection = message;
    }

    /** Rewrites the body of ResourceSlice creates and updates before storing, as a server with a feature off does. */
    public void rewriteSliceWrites(UnaryOperator<JsonNode> rewrite) {
        dispatcher.rewrite = rewrite;
    }

    @Override
    public void close() {
        client.close();
        server.destroy();
    }

    private static final class SpecFieldSelectors extends KubernetesCrudDispatcher {

        private static final JsonMapper JSON = JsonMapper.builder().build();
        private volatile String rejection;
        private volatile UnaryOperator<JsonNode> rewrite = UnaryOperator.identity();

        @Override
        public MockResponse handleCreate(RecordedRequest request) {
            return isSliceWrite(request) ? write(request, super::handleCreate) : super.handleCreate(request);
        }

        @Override
        public MockResponse handleUpdate(RecordedRequest request) {
            return isSliceWrite(request) ? write(request, super::handleUpdate) : super.handleUpdate(request);
        }

        private static boolean isSliceWrite(RecordedRequest request) {
            return request.getPath().contains("/resourceslices");
        }

        private MockResponse write(RecordedRequest request, Function<RecordedRequest, MockResponse> store) {
            String message = rejection;
            if (message != null) {
                return new MockResponse().setResponseCode(422).setBody("{\"kind\":\"Status\",\"apiVersion\":\"v1\","
                        + "\"status\":\"Failure\",\"message\":\"" + message + "\",\"reason\":\"Invalid\","
                        + "\"code\":422}");
            }
            JsonNode body = rewrite.apply(JSON.readTree(request.getUtf8Body()));
            return store.apply(new RecordedRequest(request.getHttpVersion(), request.method(), request.getPath(),
                    request.getHeaders(), new Buffer(JSON.writeValueAsBytes(body))));
        }

        @Override
        public MockResponse handleGet(String path) {
            Request request = Request.parse(path);
            MockResponse response = super.handleGet(request.pathForMock());
            if (request.specFields().isEmpty() || request.watch() || response.code() != 200) {
                return response;
            }
            JsonNode list = JSON.readTree(response.getBody().readUtf8());
            ArrayNode kept = JSON.createArrayNode();
            for (JsonNode item : list.path("items")) {
                if (request.matches(item)) {
                    kept.add(item);
                }
            }
            ((ObjectNode) list).set("items", kept);
            return response.setBody(JSON.writeValueAsString(list));
        }

        @Override
        public MockResponse handleWatch(String path) {
            MockResponse response = super.handleWatch(Request.parse(path).pathForMock());
            return response.withWebSocketUpgrade(new ClosedOffTheEventLoop(response.getWebSocketListener()));
        }
    }

    /**
     * A watch's listener whose close and failure callbacks run on a thread of their own. The mock's listener waits
     * there (up to a minute) for its sender to end, and its sender may be waiting (up to 30 s) for a write that only
     * the event loop can finish: on the event loop, a watch that closed while an event was on its way blocked every
     * request to the mock until the send gave up.
     */
    private static final class ClosedOffTheEventLoop extends WebSocketListener {

        private final WebSocketListener watch;

        ClosedOffTheEventLoop(WebSocketListener watch) {
            this.watch = watch;
        }

        @Override
        public void onOpen(WebSocket webSocket, Response response) {
            watch.onOpen(webSocket, response);
        }

        @Override
        public void onClosing(WebSocket webSocket, int code, String reason) {
            watch.onClosing(webSocket, code, reason);
        }

        @Override
        public void onClosed(WebSocket webSocket, int code, String reason) {
            WATCH_CLOSERS.execute(() -> watch.onClosed(webSocket, code, reason));
        }

        @Override
        public void onFailure(WebSocket webSocket, Throwable failure, Response response) {
            WATCH_CLOSERS.execute(() -> watch.onFailure(webSocket, failure, response));
        }
    }

    /** A request path split into what the mock understands and the {@code spec.*} field requirements. */
    private record Request(String pathForMock, Map<String, String> specFields, boolean watch) {

        static Request parse(String path) {
            int question = path.indexOf('?');
            if (question < 0) {
                return new Request(path, Map.of(), false);
            }
            List<String> params = new ArrayList<>();
            Map<String, String> specFields = new LinkedHashMap<>();
            boolean watch = false;
            for (String param : path.substring(question + 1).split("&")) {
                watch |= param.equals("watch=true");
                if (!param.startsWith("fieldSelector=")) {
                    params.add(param);
                    continue;
                }
                List<String> kept = new ArrayList<>();
                String selector = URLDecoder.decode(param.substring("fieldSelector=".length()), StandardCharsets.UTF_8);
                for (String requirement : selector.split(",")) {
                    int equals = requirement.indexOf('=');
                    if (requirement.startsWith("spec.") && equals > 0 && requirement.charAt(equals - 1) != '!') {
                        specFields.put(requirement.substring(0, equals), requirement.substring(equals + 1));
                    } else if (!requirement.isEmpty()) {
                        kept.add(requirement);
                    }
                }
                if (!kept.isEmpty()) {
                    params.add("fieldSelector=" + URLEncoder.encode(String.join(",", kept), StandardCharsets.UTF_8));
                }
            }
            String base = path.substring(0, question);
            return new Request(params.isEmpty() ? base : base + "?" + String.join("&", params), specFields, watch);
        }

        /** A missing field counts as empty, as for the real field selectors. */
        boolean matches(JsonNode item) {
            return specFields.entrySet().stream().allMatch(field -> {
                JsonNode value = item;
                for (String name : field.getKey().split("\\.")) {
                    value = value.path(name);
                }
                return (value.isMissingNode() || value.isNull() ? "" : value.asString()).equals(field.getValue());
            });
        }
    }
}
