package io.kdra.apiserver.json;

import java.io.ByteArrayInputStream;
import java.util.Iterator;
import java.util.Map;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.lowlevel.Parse;
import org.snakeyaml.engine.v2.events.CollectionEndEvent;
import org.snakeyaml.engine.v2.events.CollectionStartEvent;
import org.snakeyaml.engine.v2.events.Event;
import org.snakeyaml.engine.v2.api.LoadSettings;
import org.snakeyaml.engine.v2.exceptions.YamlEngineException;
import org.snakeyaml.engine.v2.schema.CoreSchema;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonPointer;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.core.TokenStreamFactory;
import tools.jackson.core.exc.StreamReadException;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.dataformat.yaml.YAMLMapper;
import tools.jackson.dataformat.yaml.YAMLWriteFeature;

/**
 * The JSON tree toolkit of the API server: one mapper (and one for YAML, which requests and answers may use instead), and
 * null-safe access to the paths objects are made of.
 */
public final class Json {

    /**
     * Property names are not canonicalized: managedFields name list items by their keys ({@code k:{"uid":"..."}}),
     * so objects keep bringing names never seen before, and each parse that adds one to Jackson's shared symbol
     * table copies the whole table first (a claim parsed in 52 µs instead of 4).
     */
    private static final JsonFactory FACTORY = JsonFactory.builder()
            .disable(TokenStreamFactory.Feature.CANONICALIZE_PROPERTY_NAMES).build();
    public static final JsonMapper MAPPER = JsonMapper.builder(FACTORY).build();
    private static final JsonMapper REJECTING_DUPLICATES = JsonMapper.builder(FACTORY)
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();
    /**
     * Writes YAML with every string quoted (MINIMIZE_QUOTES stays off): a YAML 1.1 reader would take an unquoted
     * resourceVersion or timestamp for a number or a date.
     */
    private static final YAMLMapper YAML = YAMLMapper.builder()
            .disable(YAMLWriteFeature.WRITE_DOC_START_MARKER)
            .build();
    private static final LoadSettings YAML_READING = LoadSettings.builder().setSchema(new CoreSchema())
            .setAllowDuplicateKeys(false).build();
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    /** How deep objects and arrays may nest in a request body: Jackson's limit, applied to YAML too. */
    public static final int MAX_DEPTH = StreamReadConstraints.DEFAULT_MAX_DEPTH;

    private Json() {}

    public static ObjectNode object() {
        return NODES.objectNode();
    }

    public static ArrayNode array() {
        return NODES.arrayNode();
    }

    /** @throws JacksonException when the bytes are not one JSON value */
    public static JsonNode parse(byte[] bytes) {
        return MAPPER.readTree(bytes);
    }

    /**
     * Parses as {@link #parse}, and finds the first property an object repeats.
     *
     * @return the tree (the last of repeated values wins) and the repeated property's path, e.g.
     *     {@code spec.containers[0].image}, or null
     */
    public static Parsed parseNoticingDuplicates(byte[] bytes) {
        try {
            return new Parsed(REJECTING_DUPLICATES.readTree(bytes), null);
        } catch (StreamReadException e) {
            JsonParser parser = e.processor();
            if (parser == null || !e.getOriginalMessage().startsWith("Duplicate")) {
                throw e;
            }
            return new Parsed(parse(bytes), path(parser.streamReadContext().pathAsPointer()));
        }
    }

    /** A parsed document and the path of the first property it repeats, or null. */
    public record Parsed(JsonNode node, String duplicate) {}

    /** @return the pointer as a field path: {@code /spec/containers/0/image} is {@code spec.containers[0].image} */
    private static String path(JsonPointer pointer) {
        StringBuilder out = new StringBuilder();
        for (JsonPointer step = pointer; step != null && !step.matches(); step = step.tail()) {
            if (step.mayMatchElement()) {
                out.append('[').append(step.getMatchingIndex()).append(']');
            } else {
                out.append(out.length() == 0 ? "" : ".").append(step.getMatchingProperty());
            }
        }
        return out.toString();
    }

    /**
     * Reads YAML as kube-apiserver does before decoding: one document, aliases resolved, the YAML 1.2 core schema for
     * plain scalars ({@code ~} and {@code Null} are null, {@code True} is true), a repeated key an error.
     *
     * @return the document as a tree, or a missing node when the bytes hold no document
     * @throws YamlEngineException when the bytes are not one YAML document
     */
    public static JsonNode parseYaml(byte[] bytes) {
        requireYamlDepth(bytes);
        Object document = new Load(YAML_READING).loadFromInputStream(new ByteArrayInputStream(bytes));
        if (document == null) {
            return NODES.missingNode();
        }
        try {
            return MAPPER.valueToTree(document);
        } catch (JacksonException | StackOverflowError e) {
            // aliases can nest a document deeper than its text: the tree would exceed the JSON depth limit
            throw new YamlEngineException("yaml: exceeded max depth of " + MAX_DEPTH + " once aliases are expanded");
        }
    }

    /**
     * Checks the nesting of a YAML text with the parser's events, which keep no stack of their own, before the
     * recursive composer reads it: a 2 KB body of 1,000 nested flow sequences would otherwise overflow the stack.
     */
    private static void requireYamlDepth(byte[] bytes) {
        int depth = 0;
        for (Iterator<Event> events = new Parse(YAML_READING).parseInputStream(new ByteArrayInputStream(bytes))
                .iterator(); events.hasNext(); ) {
            Event event = events.next();
            if (event instanceof CollectionStartEvent) {
                if (++depth > MAX_DEPTH) {
                    throw new YamlEngineException("yaml: exceeded max depth of " + MAX_DEPTH);
                }
            } else if (event instanceof CollectionEndEvent) {
                depth--;
            }
        }
    }

    public static byte[] yaml(JsonNode node) {
        return YAML.writeValueAsBytes(node);
    }

    public static byte[] bytes(JsonNode node) {
        return MAPPER.writeValueAsBytes(node);
    }

    public static String string(JsonNode node) {
        return MAPPER.writeValueAsString(node);
    }

    /** @return the node at the path, or a missing node; never null */
    public static JsonNode at(JsonNode root, String... path) {
        JsonNode node = root;
        for (String name : path) {
            if (node == null || !node.isObject()) {
                return NODES.missingNode();
            }
            node = node.path(name);
        }
        return node == null ? NODES.missingNode() : node;
    }

    /** @return the string at the path, or null when absent or not a string */
    public static String text(JsonNode root, String... path) {
        JsonNode node = at(root, path);
        return node.isString() ? node.stringValue() : null;
    }

    /** @return the object at the path, or null when absent or not an object */
    public static ObjectNode objectAt(JsonNode root, String... path) {
        JsonNode node = at(root, path);
        return node.isObject() ? (ObjectNode) node : null;
    }

    /** @return the object at the path, created (replacing any non-object) where missing */
    public static ObjectNode ensureObject(ObjectNode root, String... path) {
        ObjectNode node = root;
        for (String name : path) {
            JsonNode child = node.get(name);
            if (child == null || !child.isObject()) {
                child = node.putObject(name);
            }
            node = (ObjectNode) child;
        }
        return node;
    }

    public static ObjectNode metadata(ObjectNode object) {
        return ensureObject(object, "metadata");
    }

    /** @return the string-valued entries of the object at the path (labels, annotations, node selectors) */
    public static Map<String, String> stringMap(JsonNode root, String... path) {
        JsonNode node = at(root, path);
        if (!node.isObject()) {
            return Map.of();
        }
        Map<String, String> map = new java.util.LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = node.properties().iterator(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> entry = it.next();
            map.put(entry.getKey(), entry.getValue().isString() ? entry.getValue().stringValue() : entry.getValue().toString());
        }
        return map;
    }

    /** @return whether the value is absent, null, or an empty string, array or object (Go's omitempty) */
    public static boolean isEmpty(JsonNode node) {
        if (node == null || node.isMissingNode() || node.isNull()) {
            return true;
        }
        if (node.isString()) {
            return node.stringValue().isEmpty();
        }
        return node.isContainer() && node.isEmpty();
    }
}
