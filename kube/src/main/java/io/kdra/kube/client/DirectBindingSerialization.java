package io.kdra.kube.client;

import io.fabric8.kubernetes.api.model.FieldsV1;
import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.fabric8.kubernetes.api.model.WatchEvent;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.kubernetes.model.jackson.Jackson2JdkTypesModule;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.TokenStreamFactory;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.core.util.JsonParserSequence;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.module.SimpleModule;
import tools.jackson.databind.util.TokenBuffer;

/**
 * fabric8's serialization, except that watch events are bound straight into the model, and managedFields' field
 * sets in one piece ({@link FieldsV1Deserializer}).
 *
 * <p>A watch event's {@code object} may be of any kind, so fabric8 parses it into a JSON tree first, reads
 * {@code apiVersion} and {@code kind} from the tree, then binds the tree to the kind's class. Every informer of every
 * component pays that for every event, and in a cluster of many nodes the informers' share of the CPU was the largest
 * after the API server's. Here the object's members are read until {@code apiVersion} and {@code kind} are known (the
 * API server writes them first), and the rest is bound from the same parser. Anything else — an event without them, a
 * kind no class is registered for, a document that is not an event — takes fabric8's way, so the results are the same.
 */
final class DirectBindingSerialization extends KubernetesSerialization {

    // Set by configureMapper, which the superclass's constructor calls; a field initializer would overwrite it.
    private ObjectMapper mapper;

    /**
     * fabric8's own mapper, but property names are not canonicalized: managedFields name list items by their keys
     * ({@code k:{"uid":"..."}}), so objects keep bringing names never seen before, and each parse that adds one to
     * Jackson's shared symbol table copies the whole table first (a claim parsed in 52 µs instead of 4).
     */
    DirectBindingSerialization() {
        super(JsonMapper.builder(JsonFactory.builderWithJackson2Defaults()
                        .disable(TokenStreamFactory.Feature.CANONICALIZE_PROPERTY_NAMES).build())
                .configureForJackson2().addModule(new Jackson2JdkTypesModule()).build(), true);
    }

    @Override
    protected ObjectMapper configureMapper(ObjectMapper given) {
        mapper = super.configureMapper(given).rebuild()
                .addModule(new SimpleModule("kdra-fieldsv1").addDeserializer(FieldsV1.class,
                        new FieldsV1Deserializer()))
                .build();
        return mapper;
    }

    @Override
    public <T> T unmarshal(String json, Class<T> type) {
        if (type == WatchEvent.class) {
            WatchEvent event = watchEvent(json);
            if (event != null) {
                return type.cast(event);
            }
        }
        return super.unmarshal(json, type);
    }

    /** The event bound directly, or null when it has to take fabric8's way. */
    private WatchEvent watchEvent(String json) {
        try (JsonParser parser = mapper.createParser(json)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                return null;
            }
            String type = null;
            KubernetesResource object = null;
            boolean sawObject = false;
            while (parser.nextToken() == JsonToken.PROPERTY_NAME) {
                String name = parser.currentName();
                JsonToken value = parser.nextToken();
                if (name.equals("type") && value == JsonToken.VALUE_STRING) {
                    type = parser.getString();
                } else if (name.equals("object") && value == JsonToken.START_OBJECT && !sawObject) {
                    object = resource(parser);
                    if (object == null) {
                        return null;
                    }
                    sawObject = true;
                } else {
                    return null;
                }
            }
            if (type == null || !sawObject || parser.currentToken() != JsonToken.END_OBJECT
                    || parser.nextToken() != null) {
                return null;
            }
            return new WatchEvent(object, type);
        }
    }

    /** Binds the object the parser is at (its START_OBJECT) once its apiVersion and kind are known; else null. */
    private KubernetesResource resource(JsonParser parser) {
        TokenBuffer head = TokenBuffer.forBuffering(parser, parser.objectReadContext());
        head.writeStartObject();
        String apiVersion = null;
        String kind = null;
        while (apiVersion == null || kind == null) {
            if (parser.nextToken() != JsonToken.PROPERTY_NAME) {
                return null;
            }
            String name = parser.currentName();
            JsonToken value = parser.nextToken();
            if (value == JsonToken.VALUE_STRING && name.equals("apiVersion")) {
                apiVersion = parser.getString();
            } else if (value == JsonToken.VALUE_STRING && name.equals("kind")) {
                kind = parser.getString();
            }
            head.writeName(name);
            head.copyCurrentStructure(parser);
        }
        Class<? extends KubernetesResource> resourceType = getRegisteredKubernetesResource(apiVersion, kind);
        if (resourceType == null) {
            return null;
        }
        // the head's tokens, then the rest of the object from the parser, which is left on the object's END_OBJECT
        JsonParser joined = JsonParserSequence.createFlattened(false, head.asParser(parser.objectReadContext()),
                parser);
        joined.nextToken();
        return mapper.readerFor(resourceType).without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .readValue(joined);
    }
}
