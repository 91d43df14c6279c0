package io.kdra.kube.client;

import io.fabric8.kubernetes.api.model.FieldsV1;
import java.util.LinkedHashMap;
import java.util.Map;
import tools.jackson.core.JsonParser;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.ValueDeserializer;

/**
 * Binds a managedFields entry's {@code fieldsV1} as one map. The model class has no properties, only an any-setter,
 * so Jackson otherwise treats every member ({@code f:metadata}, {@code f:status}, ...) as an unknown property and
 * sets it through a reflective method-handle call; every object of every watch event and write answer carries
 * several such entries. The result is the same: the members in order, their values as Jackson binds untyped JSON.
 */
final class FieldsV1Deserializer extends ValueDeserializer<FieldsV1> {

    @Override
    public FieldsV1 deserialize(JsonParser parser, DeserializationContext context) {
        @SuppressWarnings("unchecked")
        Map<String, Object> members = context.readValue(parser, LinkedHashMap.class);
        FieldsV1 fields = new FieldsV1();
        fields.setAdditionalProperties(members);
        return fields;
    }
}
