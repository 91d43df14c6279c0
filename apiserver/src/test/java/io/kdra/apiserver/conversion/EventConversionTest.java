package io.kdra.apiserver.conversion;

import static org.assertj.core.api.Assertions.assertThat;

import io.kdra.apiserver.json.Json;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

class EventConversionTest {

    private static final String CORE = """
            {"apiVersion":"v1","kind":"Event","metadata":{"name":"e","namespace":"ns"},
             "involvedObject":{"kind":"Pod","name":"p"},"reason":"Started","message":"started",
             "source":{"component":"kubelet","host":"node-1"},"firstTimestamp":"2026-12-03T10:00:00Z",
             "lastTimestamp":"2026-12-03T10:01:00Z","count":2,"type":"Normal",
             "eventTime":"2026-12-03T10:00:00.000000Z","series":{"count":2,"lastObservedTime":"2026-12-03T10:01:00.000000Z"},
             "action":"Start","related":{"kind":"Node","name":"node-1"},"reportingComponent":"kubelet",
             "reportingInstance":"node-1"}""";

    private static final String EVENTS = """
            {"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"name":"e","namespace":"ns"},
             "regarding":{"kind":"Pod","name":"p"},"reason":"Started","note":"started",
             "deprecatedSource":{"component":"kubelet","host":"node-1"},
             "deprecatedFirstTimestamp":"2026-12-03T10:00:00Z","deprecatedLastTimestamp":"2026-12-03T10:01:00Z",
             "deprecatedCount":2,"type":"Normal","eventTime":"2026-12-03T10:00:00.000000Z",
             "series":{"count":2,"lastObservedTime":"2026-12-03T10:01:00.000000Z"},"action":"Start",
             "related":{"kind":"Node","name":"node-1"},"reportingController":"kubelet","reportingInstance":"node-1"}""";

    @Test
    void renamesTheFieldsUpstreamConverts() {
        assertThat(Json.string(EventConversion.fromCore(object(CORE)))).isEqualTo(Json.string(object(EVENTS)));
        assertThat(Json.string(EventConversion.toCore(object(EVENTS)))).isEqualTo(Json.string(object(CORE)));
    }

    @Test
    void leavesItsInputAloneAndSetsTheApiVersion() {
        ObjectNode core = object("{\"metadata\":{\"name\":\"e\"},\"message\":\"m\"}");
        ObjectNode events = EventConversion.fromCore(core);
        assertThat(Json.text(events, "apiVersion")).isEqualTo("events.k8s.io/v1");
        assertThat(Json.text(events, "note")).isEqualTo("m");
        assertThat(core).isEqualTo(object("{\"metadata\":{\"name\":\"e\"},\"message\":\"m\"}"));
        Json.metadata(events).put("name", "changed");
        assertThat(Json.text(core, "metadata", "name")).isEqualTo("e");
    }

    private static ObjectNode object(String json) {
        return (ObjectNode) Json.parse(json.getBytes(StandardCharsets.UTF_8));
    }
}
