package io.kdra.apiserver.conversion;

import java.util.HashMap;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Converts events.k8s.io/v1 Events to and from core v1 Events, the form kube-apiserver stores both in (upstream
 * {@code pkg/apis/events/v1} conversion). Seven fields are renamed; metadata, {@code eventTime}, {@code series} (same
 * {@code count} and {@code lastObservedTime}), {@code action}, {@code reason}, {@code related}, {@code type} and
 * {@code reportingInstance} keep their names. Field order is kept, so a round trip gives back the same JSON.
 */
public final class EventConversion {

    private static final String EVENTS_API_VERSION = "events.k8s.io/v1";
    private static final String CORE_API_VERSION = "v1";

    private static final Map<String, String> CORE_NAMES = Map.of(
            "regarding", "involvedObject",
            "note", "message",
            "reportingController", "reportingComponent",
            "deprecatedSource", "source",
            "deprecatedFirstTimestamp", "firstTimestamp",
            "deprecatedLastTimestamp", "lastTimestamp",
            "deprecatedCount", "count");
    private static final Map<String, String> EVENTS_NAMES = inverse(CORE_NAMES);

    private EventConversion() {}

    /** @return a core v1 Event with the content of the events.k8s.io/v1 Event; the input is not modified */
    public static ObjectNode toCore(ObjectNode event) {
        return renamed(event, CORE_NAMES, CORE_API_VERSION);
    }

    /** @return an events.k8s.io/v1 Event with the content of the core v1 Event; the input is not modified */
    public static ObjectNode fromCore(ObjectNode event) {
        return renamed(event, EVENTS_NAMES, EVENTS_API_VERSION);
    }

    private static ObjectNode renamed(ObjectNode event, Map<String, String> names, String apiVersion) {
        ObjectNode converted = JsonNodeFactory.instance.objectNode();
        for (Map.Entry<String, JsonNode> field : event.properties()) {
            String name = field.getKey();
            converted.set(names.getOrDefault(name, name),
                    name.equals("apiVersion") ? converted.stringNode(apiVersion) : field.getValue().deepCopy());
        }
        if (!converted.has("apiVersion")) {
            converted.put("apiVersion", apiVersion);
        }
        return converted;
    }

    private static Map<String, String> inverse(Map<String, String> names) {
        Map<String, String> inverse = new HashMap<>();
        names.forEach((from, to) -> inverse.put(to, from));
        return Map.copyOf(inverse);
    }
}
