package io.kdra.plugin.testing;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.http.MockResponse;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The fabric8 mock API server in CRUD mode, plus the {@code spec.*} field selectors the real API server offers for
 * ResourceSlices ({@code spec.driver}, {@code spec.nodeName}), which the mock silently matches against nothing.
 * Lists apply them to the items; watches drop them and deliver all events, which is enough for code that only uses
 * watch events as a trigger to list again.
 */
public final class MockApiServer implements AutoCloseable {

    private final KubernetesMockServer server;
    private final KubernetesClient client;

    public MockApiServer() {
        server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(),
                new SpecFieldSelectors(), false);
        server.init();
        client = server.createClient();
    }

    public KubernetesClient client() {
        return client;
    }

    @Override
    public void close() {
        client.close();
        server.destroy();
    }

    private static final class SpecFieldSelectors extends KubernetesCrudDispatcher {

        private static final JsonMapper JSON = JsonMapper.builder().build();

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
            return super.handleWatch(Request.parse(path).pathForMock());
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
                JsonNode value = item.path("spec").path(field.getKey().substring("spec.".length()));
                return (value.isMissingNode() || value.isNull() ? "" : value.asString()).equals(field.getValue());
            });
        }
    }
}
