package io.kdra.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.kdra.apiserver.json.Json;
import io.kdra.apiserver.resource.GoldenObjects;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Golden DRA objects with one value replaced by a value of another JSON type, written in every served version:
 * defaulting, conversion and validation must answer 400 or 422 with a Status naming the problem, never fail
 * with a 500. Seeded, so a failure repeats.
 */
class DraMalformedInputTest extends ServerTestBase {

    private static final long SEED = 20261203L;
    private static final int MUTATIONS_PER_OBJECT = 40;
    private static final List<String[]> OBJECTS = List.of(
            new String[] {"deviceclass", "deviceclasses", "v1", "v1beta2", "v1beta1"},
            new String[] {"resourceclaim", "namespaces/default/resourceclaims", "v1", "v1beta2", "v1beta1"},
            new String[] {"resourceclaimtemplate", "namespaces/default/resourceclaimtemplates", "v1", "v1beta2",
                "v1beta1"},
            new String[] {"resourceslice-node", "resourceslices", "v1", "v1beta2", "v1beta1"},
            new String[] {"resourceslice-partitions", "resourceslices", "v1", "v1beta2", "v1beta1"},
            new String[] {"resourceslice-counters", "resourceslices", "v1", "v1beta2", "v1beta1"},
            new String[] {"devicetaintrule", "devicetaintrules", "v1beta2", "v1alpha3"});

    @Test
    void aValueOfTheWrongTypeIsAClientErrorInEveryVersion() {
        Random random = new Random(SEED);
        int count = 0;
        for (String[] object : OBJECTS) {
            for (int i = 0; i < MUTATIONS_PER_OBJECT; i++) {
                String version = object[2 + random.nextInt(object.length - 2)];
                ObjectNode sent = GoldenObjects.load(object[0], version);
                sent.putObject("metadata").put("name", "malformed-" + count++);
                String changed = mutate(sent, random);
                for (String subresource : List.of("", "/status")) {
                    String path = "/apis/resource.k8s.io/" + version + "/" + object[1];
                    HttpResponse<String> response = subresource.isEmpty()
                            ? fixture.send("POST", path, "application/json", Json.string(sent))
                            : fixture.send("PUT", path + "/" + Json.text(sent, "metadata", "name") + subresource,
                                    "application/json", Json.string(sent));
                    assertThat(response.statusCode()).as("%s %s with %s: %s", object[0], version, changed,
                            response.body()).isIn(200, 201, 400, 404, 409, 422);
                    if (response.statusCode() >= 400) {
                        assertThat(response.body()).startsWith("{\"kind\":\"Status\"");
                    }
                }
            }
        }
    }

    @Test
    void aV1beta1DeviceWhoseBasicIsNoObjectIsNamed() {
        ObjectNode slice = GoldenObjects.load("resourceslice-node", "v1beta1");
        slice.putObject("metadata").put("name", "malformed-basic");
        ((ObjectNode) slice.at("/spec/devices/1")).putArray("basic").add("x");

        HttpResponse<String> response = fixture.send("POST", "/apis/resource.k8s.io/v1beta1/resourceslices",
                "application/json", Json.string(slice));

        assertThat(response.statusCode()).as(response.body()).isEqualTo(400);
        assertThat(response.body())
                .contains("ResourceSlice in version \\\"v1beta1\\\" cannot be handled as a ResourceSlice: json: "
                        + "cannot unmarshal array into Go struct field Device.spec.devices.basic of type "
                        + "v1beta1.BasicDevice");
    }

    /**
     * Replaces one randomly chosen value of spec or status, or below, by a value of another type, or removes it;
     * returns what changed, for the failure message.
     */
    private static String mutate(ObjectNode object, Random random) {
        List<String> paths = new ArrayList<>();
        List<JsonNode> parents = new ArrayList<>();
        for (String top : List.of("spec", "status")) {
            if (object.has(top)) {
                paths.add("/" + top);
                parents.add(object);
                collect(object.get(top), "/" + top, paths, parents);
            }
        }
        int chosen = random.nextInt(paths.size());
        String path = paths.get(chosen);
        JsonNode parent = parents.get(chosen);
        String last = path.substring(path.lastIndexOf('/') + 1);
        if (random.nextInt(7) == 0) {
            if (parent instanceof ArrayNode array) {
                array.remove(Integer.parseInt(last));
            } else {
                ((ObjectNode) parent).remove(last);
            }
            return path + " removed";
        }
        JsonNode replacement = switch (random.nextInt(6)) {
            case 0 -> JsonNodeFactory.instance.stringNode("x");
            case 1 -> JsonNodeFactory.instance.numberNode(-7);
            case 2 -> JsonNodeFactory.instance.booleanNode(true);
            case 3 -> JsonNodeFactory.instance.arrayNode().add("x");
            case 4 -> JsonNodeFactory.instance.objectNode().put("x", 1);
            default -> JsonNodeFactory.instance.nullNode();
        };
        if (parent instanceof ArrayNode array) {
            array.set(Integer.parseInt(last), replacement);
        } else {
            ((ObjectNode) parent).set(last, replacement);
        }
        return path + " = " + replacement;
    }

    private static void collect(JsonNode node, String path, List<String> paths, List<JsonNode> parents) {
        if (node == null) {
            return;
        }
        if (node.isObject()) {
            for (var entry : node.properties()) {
                paths.add(path + "/" + entry.getKey());
                parents.add(node);
                collect(entry.getValue(), path + "/" + entry.getKey(), paths, parents);
            }
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                paths.add(path + "/" + i);
                parents.add(node);
                collect(node.get(i), path + "/" + i, paths, parents);
            }
        }
    }
}
