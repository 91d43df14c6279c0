package io.kdra.apiserver.patch;

import static org.assertj.core.api.Assertions.assertThat;

import io.kdra.apiserver.json.Json;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

class FieldSetTest {

    @Test
    void itemElementsAreWhatSerialisingTheKeyGives() {
        for (String value : new String[] {"main", "with \"quotes\"", "back\\slash", "tab\t", "ünï", ""}) {
            ObjectNode key = Json.object().put("name", value);
            assertThat(FieldSet.itemElement("name", key.get("name"))).isEqualTo("k:" + Json.string(key));
        }
        ObjectNode port = Json.object().put("containerPort", 80);
        assertThat(FieldSet.itemElement("containerPort", port.get("containerPort")))
                .isEqualTo("k:" + Json.string(port));
    }

    @Test
    void changedFindsLeavesAddedRemovedAndChangedIncludingKeyedItems() {
        JsonNode before = parse("{\"metadata\":{\"labels\":{\"a\":\"1\",\"gone\":\"x\"}},\"status\":{\"conditions\":["
                + "{\"type\":\"Ready\",\"status\":\"False\"},{\"type\":\"Initialized\",\"status\":\"True\"}]}}");
        JsonNode after = parse("{\"metadata\":{\"labels\":{\"a\":\"1\",\"new\":\"y\"}},\"status\":{\"conditions\":["
                + "{\"type\":\"Ready\",\"status\":\"True\"},{\"type\":\"Initialized\",\"status\":\"True\"}]}}");

        FieldSet changed = FieldSet.changed(before, after);

        assertThat(changed.paths()).extracting(FieldSet::describe).containsExactlyInAnyOrder(
                ".metadata.labels.gone", ".metadata.labels.new", ".status.conditions[type=\"Ready\"]",
                ".status.conditions[type=\"Ready\"].status");
        assertThat(FieldSet.leaves(after).changedSince(FieldSet.leaves(before)).paths()).isEqualTo(changed.paths());
        assertThat(FieldSet.leaves(after).paths().paths()).isEqualTo(FieldSet.leavesOf(after).paths());
    }

    @Test
    void fieldsV1RoundTripsThroughTheSortedPaths() {
        JsonNode fields = parse("{\"f:metadata\":{\"f:labels\":{\".\":{},\"f:app\":{},\"f:tier\":{}}},"
                + "\"f:spec\":{\"f:containers\":{\"k:{\\\"name\\\":\\\"a\\\"}\":{\".\":{},\"f:image\":{}},"
                + "\"k:{\\\"name\\\":\\\"b\\\"}\":{\".\":{},\"f:image\":{},\"f:name\":{}}},\"f:nodeName\":{}},"
                + "\"f:status\":{\"f:phase\":{}}}");

        assertThat(FieldSet.fromFieldsV1(fields).toFieldsV1()).isEqualTo(fields);
    }

    private static JsonNode parse(String json) {
        return Json.parse(json.getBytes(StandardCharsets.UTF_8));
    }
}
