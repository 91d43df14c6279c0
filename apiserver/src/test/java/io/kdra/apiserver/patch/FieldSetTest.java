package io.kdra.apiserver.patch;

import static org.assertj.core.api.Assertions.assertThat;

import io.kdra.apiserver.json.Json;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ContainerNode;
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
    void changesWalkingBothObjectsAreWhatComparingEveryLeafGives() {
        Random random = new Random(9);
        for (int i = 0; i < 2_000; i++) {
            ObjectNode before = randomObject(random);
            ObjectNode after = random.nextInt(4) == 0 ? randomObject(random) : mutated(before, random);

            FieldSet.Changes changes = FieldSet.changes(before, after);

            FieldSet byLeaves = FieldSet.leaves(after).changedSince(FieldSet.leaves(before));
            assertThat(changes.changed().paths()).as("%s -> %s", before, after).isEqualTo(byLeaves.paths());
            assertThat(changes.setAfter().paths()).as("%s -> %s", before, after)
                    .isEqualTo(byLeaves.intersect(FieldSet.leavesOf(after)).paths());
        }
    }

    @Test
    void changesOfAStatusWriteNameOnlyTheStatusLeaves() {
        ObjectNode before = (ObjectNode) parse("{\"metadata\":{\"name\":\"p\",\"labels\":{\"a\":\"1\"}},"
                + "\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"i\"}]},"
                + "\"status\":{\"phase\":\"Pending\"}}");
        ObjectNode after = before.deepCopy();
        ((ObjectNode) after.get("status")).put("phase", "Running").putArray("conditions").addObject()
                .put("type", "Ready").put("status", "True");

        FieldSet.Changes changes = FieldSet.changes(before, after);

        assertThat(changes.changed().paths()).extracting(FieldSet::describe).containsExactlyInAnyOrder(
                ".status.phase", ".status.conditions[type=\"Ready\"]", ".status.conditions[type=\"Ready\"].type",
                ".status.conditions[type=\"Ready\"].status");
        assertThat(changes.setAfter().paths()).isEqualTo(changes.changed().paths());
    }

    /** Objects of the shapes leaves are collected from: keyed lists (with repeated keys), sets, atomic lists. */
    private static ObjectNode randomObject(Random random) {
        ObjectNode object = Json.object();
        object.put("apiVersion", "v1").put("kind", "Pod");
        if (random.nextInt(10) == 0) {
            object.put("metadata", "not an object");
        } else {
            ObjectNode metadata = object.putObject("metadata");
            metadata.put("name", "p").put("resourceVersion", String.valueOf(random.nextInt(3)));
            if (random.nextBoolean()) {
                metadata.set("labels", randomMap(random));
            }
            if (random.nextBoolean()) {
                ArrayNode finalizers = metadata.putArray("finalizers");
                for (int i = random.nextInt(3); i > 0; i--) {
                    finalizers.add("f" + random.nextInt(3));
                }
            }
        }
        ObjectNode spec = object.putObject("spec");
        spec.set("containers", randomKeyedList(random));
        if (random.nextBoolean()) {
            spec.set("nodeSelector", randomMap(random));
        }
        if (random.nextBoolean()) {
            spec.putArray("args").add("a" + random.nextInt(2));
        }
        if (random.nextBoolean()) {
            spec.putObject("empty");
        }
        if (random.nextInt(8) == 0) {
            spec.put("sep\u0000f:x", 1);
        }
        ObjectNode status = object.putObject("status");
        status.put("phase", random.nextBoolean() ? "Pending" : "Running");
        if (random.nextBoolean()) {
            status.set("conditions", randomKeyedList(random));
        }
        return object;
    }

    private static ArrayNode randomKeyedList(Random random) {
        ArrayNode list = Json.array();
        for (int i = random.nextInt(4); i > 0; i--) {
            ObjectNode item = list.addObject();
            if (random.nextInt(12) != 0) {
                item.put("name", "n" + random.nextInt(3));
            }
            item.put("type", "n" + random.nextInt(3));
            if (random.nextBoolean()) {
                item.put("image", "i" + random.nextInt(2));
            }
            if (random.nextBoolean()) {
                item.set("env", randomMap(random));
            }
        }
        return list;
    }

    private static ObjectNode randomMap(Random random) {
        ObjectNode map = Json.object();
        for (int i = random.nextInt(3); i > 0; i--) {
            map.put("k" + random.nextInt(3), random.nextInt(2));
        }
        return map;
    }

    /** A copy with a few values changed, added or removed somewhere in it. */
    private static ObjectNode mutated(ObjectNode object, Random random) {
        ObjectNode copy = object.deepCopy();
        for (int i = random.nextInt(3) + 1; i > 0; i--) {
            List<ContainerNode<?>> containers = new ArrayList<>();
            copy.forEach(child -> gather(child, containers));
            ContainerNode<?> target = containers.get(random.nextInt(containers.size()));
            if (target instanceof ObjectNode node) {
                List<String> names = new ArrayList<>(node.propertyNames());
                if (!names.isEmpty() && random.nextBoolean()) {
                    String name = names.get(random.nextInt(names.size()));
                    if (random.nextBoolean()) {
                        node.remove(name);
                    } else {
                        node.put(name, "changed" + random.nextInt(2));
                    }
                } else {
                    node.put("added" + random.nextInt(2), random.nextInt(2));
                }
            } else if (target instanceof ArrayNode array) {
                if (!array.isEmpty() && random.nextBoolean()) {
                    array.remove(random.nextInt(array.size()));
                } else {
                    array.add(array.isEmpty() || !array.get(0).isObject() ? Json.object().put("name", "n9")
                            : array.get(0).deepCopy());
                }
            }
        }
        return copy;
    }

    private static void gather(JsonNode node, List<ContainerNode<?>> containers) {
        if (node instanceof ContainerNode<?> container) {
            containers.add(container);
            node.forEach(child -> gather(child, containers));
        }
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
