package io.kdra.apiserver.patch;

import io.kdra.apiserver.json.Json;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A set of field paths in the notation of managedFields {@code fieldsV1}: {@code f:<field>} for an object field,
 * {@code k:{"name":"c"}} for an item of a keyed list, {@code v:"x"} for a member of a set list. Paths are stored as
 * their elements joined by a NUL character, so the set sorts parents before children.
 */
public final class FieldSet {

    private static final char SEPARATOR = '\u0000';
    private static final Set<String> SERVER_METADATA = Set.of("uid", "resourceVersion", "creationTimestamp",
            "generation", "managedFields", "selfLink", "deletionTimestamp", "deletionGracePeriodSeconds", "name",
            "namespace");

    private final TreeSet<String> paths;

    private FieldSet(TreeSet<String> paths) {
        this.paths = paths;
    }

    public static FieldSet empty() {
        return new FieldSet(new TreeSet<>());
    }

    /** @return the leaf fields the object sets (apiVersion, kind and server-owned metadata excluded) */
    public static FieldSet leavesOf(JsonNode object) {
        return leaves(object).paths();
    }

    /**
     * @return the leaves whose value differs between the two objects, or that only one of them has; a keyed list
     *     item's own path ({@code k:{...}/.}) differs when anything in the item does, a set member when the set does
     */
    public static FieldSet changed(JsonNode before, JsonNode after) {
        return leaves(after).changedSince(leaves(before));
    }

    /** @return the object's leaves with their values, to take both its {@link #leavesOf} and changes from one walk */
    public static Leaves leaves(JsonNode object) {
        return new Leaves(leafValues(object));
    }

    /** The leaf fields of one object, each with the node {@link #valueAt} finds there. */
    public static final class Leaves {
        private final Map<String, JsonNode> values;

        private Leaves(Map<String, JsonNode> values) {
            this.values = values;
        }

        /** @return the leaf fields, as {@link #leavesOf} gives them */
        public FieldSet paths() {
            return new FieldSet(new TreeSet<>(values.keySet()));
        }

        /** @return the leaves changed from the earlier object, as {@link #changed} gives them */
        public FieldSet changedSince(Leaves before) {
            FieldSet result = empty();
            for (Map.Entry<String, JsonNode> leaf : values.entrySet()) {
                if (!leaf.getValue().equals(before.values.get(leaf.getKey()))) {
                    result.paths.add(leaf.getKey());
                }
            }
            for (String path : before.values.keySet()) {
                if (!values.containsKey(path)) {
                    result.paths.add(path);
                }
            }
            return result;
        }
    }

    /**
     * @return each leaf path with the node {@link #valueAt} finds there (a keyed item's own path: the item; a set
     *     member: the set), collected in one walk of the object rather than one walk per path
     */
    private static Map<String, JsonNode> leafValues(JsonNode object) {
        Map<String, JsonNode> leaves = new HashMap<>();
        for (Map.Entry<String, JsonNode> entry : object.properties()) {
            String field = entry.getKey();
            if (field.equals("apiVersion") || field.equals("kind")) {
                continue;
            }
            if (field.equals("metadata") && entry.getValue().isObject()) {
                for (Map.Entry<String, JsonNode> meta : entry.getValue().properties()) {
                    if (!SERVER_METADATA.contains(meta.getKey())) {
                        collect(meta.getKey(), meta.getValue(), "f:metadata" + SEPARATOR + "f:" + meta.getKey(),
                                leaves);
                    }
                }
                continue;
            }
            collect(field, entry.getValue(), "f:" + field, leaves);
        }
        return leaves;
    }

    private static void collect(String field, JsonNode value, String path, Map<String, JsonNode> leaves) {
        if (value.isObject() && !value.isEmpty()) {
            for (Map.Entry<String, JsonNode> entry : value.properties()) {
                collect(entry.getKey(), entry.getValue(), path + SEPARATOR + "f:" + entry.getKey(), leaves);
            }
            return;
        }
        String key = MergeKeys.keyOf(field);
        if (value.isArray() && key != null && allKeyed(value, key)) {
            for (JsonNode item : value) {
                String itemPath = path + SEPARATOR + itemElement(key, item.get(key));
                leaves.putIfAbsent(itemPath + SEPARATOR + ".", item);
                for (Map.Entry<String, JsonNode> entry : item.properties()) {
                    collect(entry.getKey(), entry.getValue(), itemPath + SEPARATOR + "f:" + entry.getKey(), leaves);
                }
            }
            return;
        }
        if (value.isArray() && MergeKeys.isSet(field)) {
            for (JsonNode item : value) {
                leaves.putIfAbsent(path + SEPARATOR + "v:" + Json.string(item), value);
            }
            return;
        }
        // where keyed items repeat a key, the first item's value stays: the one valueAt finds
        leaves.putIfAbsent(path, value);
    }

    private static boolean allKeyed(JsonNode list, String key) {
        for (JsonNode item : list) {
            if (!item.isObject() || !item.has(key)) {
                return false;
            }
        }
        return true;
    }

    static String itemElement(String key, JsonNode keyValue) {
        if (keyValue.isString() && plain(key) && plain(keyValue.stringValue())) {
            // what the serialiser writes, without building and serialising a node per list item of every write
            return "k:{\"" + key + "\":\"" + keyValue.stringValue() + "\"}";
        }
        ObjectNode element = Json.object();
        element.set(key, keyValue);
        return "k:" + Json.string(element);
    }

    /** @return whether JSON writes the text between quotes as it is, with nothing escaped */
    private static boolean plain(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < 0x20 || c == '"' || c == '\\' || c > 0x7e) {
                return false;
            }
        }
        return true;
    }

    /** @return whether the path names an item of a keyed list ({@code k:{...}/.}) rather than a field */
    static boolean isListItem(String path) {
        return path.endsWith(SEPARATOR + ".");
    }

    /** @return the value at a path of this notation, or a missing node */
    static JsonNode valueAt(JsonNode root, String path) {
        JsonNode node = root;
        for (String element : split(path)) {
            if (node == null || node.isMissingNode()) {
                return Json.object().path("absent");
            }
            if (element.startsWith("f:")) {
                node = node.path(element.substring(2));
            } else if (element.startsWith("k:")) {
                node = findItem(node, element);
            } else if (element.startsWith("v:")) {
                return node;
            } else if (element.equals(".")) {
                return node;
            }
        }
        return node;
    }

    static JsonNode findItem(JsonNode list, String element) {
        JsonNode keyObject = Json.parse(element.substring(2).getBytes(java.nio.charset.StandardCharsets.UTF_8));
        Map.Entry<String, JsonNode> key = keyObject.properties().iterator().next();
        for (JsonNode item : list) {
            if (key.getValue().equals(item.get(key.getKey()))) {
                return item;
            }
        }
        return Json.object().path("absent");
    }

    static List<String> split(String path) {
        List<String> elements = new ArrayList<>();
        int start = 0;
        for (int i = 0; i <= path.length(); i++) {
            if (i == path.length() || path.charAt(i) == SEPARATOR) {
                elements.add(path.substring(start, i));
                start = i + 1;
            }
        }
        return elements;
    }

    public boolean isEmpty() {
        return paths.isEmpty();
    }

    public Set<String> paths() {
        return java.util.Collections.unmodifiableSet(paths);
    }

    public FieldSet union(FieldSet other) {
        TreeSet<String> result = new TreeSet<>(paths);
        result.addAll(other.paths);
        return new FieldSet(result);
    }

    public FieldSet minus(FieldSet other) {
        TreeSet<String> result = new TreeSet<>(paths);
        result.removeAll(other.paths);
        return new FieldSet(result);
    }

    public FieldSet withoutPaths(java.util.Collection<String> removed) {
        TreeSet<String> result = new TreeSet<>(paths);
        result.removeAll(removed);
        return new FieldSet(result);
    }

    public FieldSet intersect(FieldSet other) {
        TreeSet<String> result = new TreeSet<>(paths);
        result.retainAll(other.paths);
        return new FieldSet(result);
    }

    /** @return the readable path of an element list, e.g. {@code .spec.containers[name="c"].image} */
    public static String describe(String path) {
        StringBuilder out = new StringBuilder();
        for (String element : split(path)) {
            if (element.startsWith("f:")) {
                out.append('.').append(element.substring(2));
            } else if (element.startsWith("k:")) {
                JsonNode key = Json.parse(element.substring(2).getBytes(java.nio.charset.StandardCharsets.UTF_8));
                Map.Entry<String, JsonNode> entry = key.properties().iterator().next();
                out.append('[').append(entry.getKey()).append('=').append(Json.string(entry.getValue())).append(']');
            } else if (element.startsWith("v:")) {
                out.append("[=").append(element.substring(2)).append(']');
            }
        }
        return out.toString();
    }

    /** @return the set as a managedFields {@code fieldsV1} tree */
    public ObjectNode toFieldsV1() {
        ObjectNode root = Json.object();
        // The paths come sorted, so a path mostly shares its leading elements with the one before: their nodes are
        // taken from that path's chain rather than looked up again.
        List<ObjectNode> chain = new ArrayList<>();
        List<Integer> chainEnds = new ArrayList<>();
        String previous = "";
        for (String path : paths) {
            ObjectNode node = root;
            boolean shared = true;
            int depth = 0;
            for (int start = 0; start <= path.length(); depth++) {
                int end = path.indexOf(SEPARATOR, start);
                if (end < 0) {
                    end = path.length();
                }
                shared = shared && depth < chain.size() && chainEnds.get(depth) == end
                        && path.regionMatches(start, previous, start, end - start);
                if (shared) {
                    node = chain.get(depth);
                } else {
                    String element = path.substring(start, end);
                    JsonNode child = node.get(element);
                    node = child instanceof ObjectNode object ? object : node.putObject(element);
                    if (depth < chain.size()) {
                        chain.set(depth, node);
                        chainEnds.set(depth, end);
                    } else {
                        chain.add(node);
                        chainEnds.add(end);
                    }
                }
                start = end + 1;
            }
            chain.subList(depth, chain.size()).clear();
            chainEnds.subList(depth, chainEnds.size()).clear();
            previous = path;
        }
        return root;
    }

    /** Reads a managedFields {@code fieldsV1} tree; a node with children is not itself a leaf. */
    public static FieldSet fromFieldsV1(JsonNode tree) {
        FieldSet set = empty();
        read(tree, "", set);
        return set;
    }

    private static void read(JsonNode node, String prefix, FieldSet set) {
        for (Map.Entry<String, JsonNode> entry : node.properties()) {
            String path = prefix.isEmpty() ? entry.getKey() : prefix + SEPARATOR + entry.getKey();
            if (entry.getValue().isEmpty()) {
                set.paths.add(path);
            } else {
                read(entry.getValue(), path, set);
            }
        }
    }
}
