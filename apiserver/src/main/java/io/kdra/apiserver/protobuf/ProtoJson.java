package io.kdra.apiserver.protobuf;

import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.Message;
import io.kdra.apiserver.json.Json;
import io.kdra.apiserver.schema.ModelTypes;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.Base64;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Transcodes between a kind's protobuf message and its JSON, generically through the message descriptors. A proto
 * field has its JSON field's name; the types Go marshals by hand have their JSON forms: {@code Time} and
 * {@code MicroTime} (seconds and nanos, RFC 3339 in JSON), {@code Quantity} (a string), {@code IntOrString},
 * {@code RawExtension} and {@code FieldsV1} (JSON bytes), byte fields (base64), maps (repeated entries).
 *
 * <p>Go embeds some structs inline ({@code json:",inline"}: a volume's source, the name of a
 * {@code LocalObjectReference}, a DRA device configuration): protobuf keeps them as a message field of their own,
 * JSON flattens them. Such a field is recognised by the fabric8 model, which is generated from the JSON schema: the
 * model class has no property of the field's name but has properties of the embedded message's fields.
 *
 * <p>Go writes every non-pointer field into protobuf, empty or not, and drops the empty ones with {@code omitempty}
 * when it writes JSON. The descriptors cannot tell pointers from values, so a choice is made: an empty string is read
 * as unset (an empty string pointer is rare), a zero or false is kept, since pointers to them mean something
 * ({@code replicas: 0}, {@code automountServiceAccountToken: false}, {@code runAsUser: 0}); a Go client's
 * {@code tty: false} is thus stored where kube-apiserver would omit it.
 */
final class ProtoJson {

    private static final String META = "k8s.io.apimachinery.pkg.apis.meta.v1.";
    private static final String TIME = META + "Time";
    private static final String MICRO_TIME = META + "MicroTime";
    private static final String FIELDS_V1 = META + "FieldsV1";
    private static final String QUANTITY = "k8s.io.apimachinery.pkg.api.resource.Quantity";
    private static final String QUANTITY_VALUE = "k8s.io.apimachinery.pkg.api.resource.QuantityValue";
    private static final String INT_OR_STRING = "k8s.io.apimachinery.pkg.util.intstr.IntOrString";
    private static final String RAW_EXTENSION = "k8s.io.apimachinery.pkg.runtime.RawExtension";
    private static final Set<String> SCALAR_MESSAGES = Set.of(TIME, MICRO_TIME, FIELDS_V1, QUANTITY, QUANTITY_VALUE,
            INT_OR_STRING, RAW_EXTENSION);

    private static final DateTimeFormatter MICROS =
            DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSSXXX").withZone(ZoneOffset.UTC);
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final Map<String, Set<String>> INLINE = new ConcurrentHashMap<>();

    private ProtoJson() {}

    // ---- protobuf to JSON

    /** @param model the fabric8 class of the message, or null when unknown */
    static ObjectNode toJson(Message message, Class<?> model) {
        ObjectNode json = Json.object();
        writeFields(message, model, json);
        return json;
    }

    private static void writeFields(Message message, Class<?> model, ObjectNode into) {
        Set<String> inline = inlineFields(message.getDescriptorForType(), model);
        Map<String, Type> properties = properties(model);
        for (Map.Entry<FieldDescriptor, Object> field : message.getAllFields().entrySet()) {
            FieldDescriptor descriptor = field.getKey();
            Object value = field.getValue();
            if (inline.contains(descriptor.getName())) {
                writeFields((Message) value, model, into);
                continue;
            }
            Type type = properties.get(jsonName(descriptor));
            JsonNode json;
            if (descriptor.isMapField()) {
                json = map(descriptor, (List<?>) value, elementType(type));
            } else if (descriptor.isRepeated()) {
                ArrayNode array = NODES.arrayNode();
                for (Object element : (List<?>) value) {
                    array.add(orNull(toJson(descriptor, element, elementType(type))));
                }
                json = array;
            } else {
                json = isEmpty(value) ? null : toJson(descriptor, value, type);
            }
            if (json != null) {
                into.set(jsonName(descriptor), json);
            }
        }
    }

    private static ObjectNode map(FieldDescriptor descriptor, List<?> entries, Type valueType) {
        Descriptor entryType = descriptor.getMessageType();
        FieldDescriptor keyField = entryType.findFieldByName("key");
        FieldDescriptor valueField = entryType.findFieldByName("value");
        ObjectNode map = Json.object();
        for (Object entry : entries) {
            Message message = (Message) entry;
            map.set((String) message.getField(keyField),
                    orNull(toJson(valueField, message.getField(valueField), valueType)));
        }
        return map;
    }

    /** @return the JSON of one value, or null for a value Go omits (an empty time, an empty raw extension) */
    private static JsonNode toJson(FieldDescriptor descriptor, Object value, Type type) {
        return switch (descriptor.getJavaType()) {
            case STRING -> NODES.stringNode((String) value);
            case INT -> NODES.numberNode((Integer) value);
            case LONG -> longNode((Long) value);
            case BOOLEAN -> NODES.booleanNode((Boolean) value);
            case FLOAT -> NODES.numberNode((Float) value);
            case DOUBLE -> NODES.numberNode((Double) value);
            case BYTE_STRING -> NODES.stringNode(Base64.getEncoder().encodeToString(((ByteString) value).toByteArray()));
            case ENUM -> NODES.stringNode(value.toString());
            case MESSAGE -> messageToJson((Message) value, type);
        };
    }

    private static JsonNode messageToJson(Message message, Type type) {
        Descriptor descriptor = message.getDescriptorForType();
        switch (descriptor.getFullName()) {
            case TIME, MICRO_TIME -> {
                long seconds = (Long) message.getField(descriptor.findFieldByName("seconds"));
                int nanos = (Integer) message.getField(descriptor.findFieldByName("nanos"));
                if (message.getAllFields().isEmpty()) {
                    return null;
                }
                Instant instant = Instant.ofEpochSecond(seconds, nanos);
                return NODES.stringNode(descriptor.getFullName().equals(TIME)
                        ? DateTimeFormatter.ISO_INSTANT.format(instant.truncatedTo(ChronoUnit.SECONDS))
                        : MICROS.format(instant));
            }
            case QUANTITY, QUANTITY_VALUE -> {
                String text = (String) message.getField(descriptor.findFieldByName("string"));
                return text.isEmpty() ? null : NODES.stringNode(text);
            }
            case INT_OR_STRING -> {
                long kind = (Long) message.getField(descriptor.findFieldByName("type"));
                return kind == 1 ? NODES.stringNode((String) message.getField(descriptor.findFieldByName("strVal")))
                        : NODES.numberNode((Integer) message.getField(descriptor.findFieldByName("intVal")));
            }
            case RAW_EXTENSION -> {
                return rawJson((ByteString) message.getField(descriptor.findFieldByName("raw")), "raw extension");
            }
            case FIELDS_V1 -> {
                return rawJson((ByteString) message.getField(descriptor.findFieldByName("Raw")), "fieldsV1");
            }
            default -> {
                return toJson(message, classOf(type));
            }
        }
    }

    /** A number as the JSON parser reads it back: an int when it fits, so that the two compare equal. */
    private static JsonNode longNode(long value) {
        return value == (int) value ? NODES.numberNode((int) value) : NODES.numberNode(value);
    }

    private static JsonNode rawJson(ByteString raw, String what) {
        if (raw.isEmpty()) {
            return null;
        }
        try {
            return Json.parse(raw.toByteArray());
        } catch (JacksonException e) {
            throw new ProtobufException("the " + what + " is no JSON: " + e.getOriginalMessage());
        }
    }

    private static boolean isEmpty(Object value) {
        return value instanceof String s && s.isEmpty() || value instanceof ByteString bytes && bytes.isEmpty();
    }

    private static JsonNode orNull(JsonNode json) {
        return json == null ? NODES.nullNode() : json;
    }

    // ---- JSON to protobuf

    /**
     * @param model the fabric8 class of the message, or null when unknown
     * @throws IllegalArgumentException when a value does not fit its field
     */
    static DynamicMessage toProto(ObjectNode json, Descriptor descriptor, Class<?> model) {
        DynamicMessage.Builder builder = DynamicMessage.newBuilder(descriptor);
        Set<String> inline = inlineFields(descriptor, model);
        Map<String, Type> properties = properties(model);
        Map<String, ObjectNode> inlined = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> property : json.properties()) {
            String name = property.getKey();
            JsonNode value = property.getValue();
            if (value.isNull()) {
                continue;
            }
            FieldDescriptor field = field(descriptor, name);
            if (field != null && !inline.contains(field.getName())) {
                set(builder, field, value, properties.get(name));
                continue;
            }
            // Go's JSON flattens the inline structs; apiVersion and kind, and fields newer than the descriptors, go
            for (String inlineField : inline) {
                if (accepts(descriptor.findFieldByName(inlineField).getMessageType(), name, model)) {
                    inlined.computeIfAbsent(inlineField, f -> Json.object()).set(name, value);
                    break;
                }
            }
        }
        inlined.forEach((name, fields) -> {
            FieldDescriptor field = descriptor.findFieldByName(name);
            builder.setField(field, toProto(fields, field.getMessageType(), model));
        });
        return builder.build();
    }

    private static void set(DynamicMessage.Builder builder, FieldDescriptor field, JsonNode value, Type type) {
        if (field.isMapField()) {
            require(value.isObject(), field, "an object");
            Descriptor entryType = field.getMessageType();
            FieldDescriptor keyField = entryType.findFieldByName("key");
            FieldDescriptor valueField = entryType.findFieldByName("value");
            for (Map.Entry<String, JsonNode> entry : value.properties()) {
                DynamicMessage.Builder pair = DynamicMessage.newBuilder(entryType).setField(keyField, entry.getKey());
                if (!entry.getValue().isNull()) {
                    pair.setField(valueField, toProto(valueField, entry.getValue(), elementType(type)));
                }
                builder.addRepeatedField(field, pair.build());
            }
        } else if (field.isRepeated()) {
            require(value.isArray(), field, "an array");
            for (JsonNode element : value) {
                builder.addRepeatedField(field, toProto(field, element, elementType(type)));
            }
        } else {
            builder.setField(field, toProto(field, value, type));
        }
    }

    private static Object toProto(FieldDescriptor field, JsonNode value, Type type) {
        return switch (field.getJavaType()) {
            case STRING -> {
                require(value.isValueNode(), field, "a string");
                yield value.asString();
            }
            case INT -> {
                require(value.isNumber() && value.canConvertToInt(), field, "an int32");
                yield value.asInt();
            }
            case LONG -> {
                require(value.isNumber() && value.canConvertToLong(), field, "an int64");
                yield value.asLong();
            }
            case BOOLEAN -> {
                require(value.isBoolean(), field, "a boolean");
                yield value.asBoolean();
            }
            case FLOAT -> (float) value.asDouble();
            case DOUBLE -> value.asDouble();
            case BYTE_STRING -> ByteString.copyFrom(Base64.getDecoder().decode(value.asString()));
            case ENUM -> field.getEnumType().findValueByName(value.asString());
            case MESSAGE -> messageToProto(field, value, type);
        };
    }

    private static Message messageToProto(FieldDescriptor field, JsonNode value, Type type) {
        Descriptor descriptor = field.getMessageType();
        DynamicMessage.Builder builder = DynamicMessage.newBuilder(descriptor);
        switch (descriptor.getFullName()) {
            case TIME, MICRO_TIME -> {
                Instant instant;
                try {
                    instant = OffsetDateTime.parse(value.asString()).toInstant();
                } catch (DateTimeParseException e) {
                    throw new IllegalArgumentException(field.getFullName() + ": " + e.getMessage(), e);
                }
                return builder.setField(descriptor.findFieldByName("seconds"), instant.getEpochSecond())
                        .setField(descriptor.findFieldByName("nanos"), instant.getNano()).build();
            }
            case QUANTITY, QUANTITY_VALUE -> {
                require(value.isString() || value.isNumber(), field, "a quantity");
                return builder.setField(descriptor.findFieldByName("string"), value.asString()).build();
            }
            case INT_OR_STRING -> {
                if (value.isString()) {
                    return builder.setField(descriptor.findFieldByName("type"), 1L)
                            .setField(descriptor.findFieldByName("strVal"), value.asString()).build();
                }
                require(value.isIntegralNumber() && value.canConvertToInt(), field, "an int or string");
                return builder.setField(descriptor.findFieldByName("type"), 0L)
                        .setField(descriptor.findFieldByName("intVal"), value.asInt()).build();
            }
            case RAW_EXTENSION -> {
                return builder.setField(descriptor.findFieldByName("raw"), ByteString.copyFrom(Json.bytes(value)))
                        .build();
            }
            case FIELDS_V1 -> {
                return builder.setField(descriptor.findFieldByName("Raw"), ByteString.copyFrom(Json.bytes(value)))
                        .build();
            }
            default -> {
                require(value.isObject(), field, "an object");
                return toProto((ObjectNode) value, descriptor, classOf(type));
            }
        }
    }

    private static void require(boolean fits, FieldDescriptor field, String what) {
        if (!fits) {
            throw new IllegalArgumentException(field.getFullName() + " must be " + what);
        }
    }

    /** @return whether the JSON field belongs to the message or to a struct it embeds inline */
    private static boolean accepts(Descriptor descriptor, String jsonName, Class<?> model) {
        if (field(descriptor, jsonName) != null) {
            return true;
        }
        for (String inline : inlineFields(descriptor, model)) {
            if (accepts(descriptor.findFieldByName(inline).getMessageType(), jsonName, model)) {
                return true;
            }
        }
        return false;
    }

    // ---- names

    /**
     * A few proto fields carry the Go field's name rather than the JSON one (admissionregistration's
     * {@code Validation.Expression}); JSON names always start lower-case.
     */
    private static String jsonName(FieldDescriptor field) {
        String name = field.getName();
        return Character.isUpperCase(name.charAt(0)) ? Character.toLowerCase(name.charAt(0)) + name.substring(1)
                : name;
    }

    private static FieldDescriptor field(Descriptor descriptor, String jsonName) {
        FieldDescriptor field = descriptor.findFieldByName(jsonName);
        if (field == null && !jsonName.isEmpty()) {
            field = descriptor.findFieldByName(Character.toUpperCase(jsonName.charAt(0)) + jsonName.substring(1));
        }
        return field;
    }

    // ---- the model

    /** The names of the message's fields that Go embeds inline, as the model class shows them. */
    private static Set<String> inlineFields(Descriptor descriptor, Class<?> model) {
        if (model == null) {
            return Set.of();
        }
        return INLINE.computeIfAbsent(descriptor.getFullName() + " " + model.getName(), key -> {
            Map<String, Type> properties = properties(model);
            Set<String> inline = new HashSet<>();
            for (FieldDescriptor field : descriptor.getFields()) {
                if (field.getJavaType() != FieldDescriptor.JavaType.MESSAGE || field.isRepeated()
                        || properties.containsKey(jsonName(field))
                        || SCALAR_MESSAGES.contains(field.getMessageType().getFullName())) {
                    continue;
                }
                if (field.getMessageType().getFields().stream().anyMatch(f -> properties.containsKey(jsonName(f)))) {
                    inline.add(field.getName());
                }
            }
            return Set.copyOf(inline);
        });
    }

    private static Map<String, Type> properties(Class<?> model) {
        return model == null ? Map.of() : ModelTypes.fields(model);
    }

    /** @return the element type of a list, the value type of a map */
    private static Type elementType(Type type) {
        if (type instanceof ParameterizedType parameterized) {
            Type[] arguments = parameterized.getActualTypeArguments();
            return arguments[arguments.length - 1];
        }
        return null;
    }

    private static Class<?> classOf(Type type) {
        return type instanceof Class<?> c && c != Object.class ? c : null;
    }
}
