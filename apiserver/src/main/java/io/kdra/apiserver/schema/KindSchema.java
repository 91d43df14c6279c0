package io.kdra.apiserver.schema;

import io.fabric8.kubernetes.api.model.AnyType;
import io.fabric8.kubernetes.api.model.Duration;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.MicroTime;
import io.fabric8.kubernetes.api.model.Quantity;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.time.temporal.Temporal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * What kube-apiserver's decoder accepts for one kind in one version. Decoding rejects a value of the wrong JSON type
 * (a 400 upstream, whatever the field validation), and drops the fields the kind does not have and the fields set to
 * {@code null}, as decoding into a Go struct does. It returns the paths of the unknown fields, which strict field
 * validation turns into an error and the default into warnings. Maps and lists are checked element by element;
 * opaque fields (driver parameters, raw extensions) hold anything.
 */
public final class KindSchema {

    private static final String QUANTITY_FORMAT =
            "quantities must match the regular expression '" + io.kdra.kube.Quantity.FORMAT + "'";

    private static final Map<String, Optional<KindSchema>> KINDS = new ConcurrentHashMap<>();

    private final Class<?> root;

    private KindSchema(Class<?> root) {
        this.root = root;
    }

    /** @return the schema of the kind in the version, empty when the model has no class for it */
    public static Optional<KindSchema> of(String group, String version, String kind) {
        return KINDS.computeIfAbsent(group + "/" + version + "/" + kind,
                key -> ModelClasses.find(group, version, kind).map(KindSchema::new));
    }

    /**
     * Checks the JSON types of the whole object and removes the unknown fields from it.
     *
     * @return the paths of the removed fields in document order, e.g. {@code spec.devices.requests[0].exactly.cont}
     * @throws DecodingException when a value has a JSON type its field cannot take
     */
    public List<String> decode(ObjectNode object) {
        List<String> unknown = new ArrayList<>();
        struct(object, root, FieldPath.ROOT, unknown);
        return unknown;
    }

    private void value(JsonNode node, Type type, FieldPath path, String struct, List<String> unknown) {
        if (node.isNull()) {
            return;
        }
        if (type instanceof ParameterizedType parameterized) {
            Class<?> raw = (Class<?>) parameterized.getRawType();
            Type[] arguments = parameterized.getActualTypeArguments();
            if (List.class.isAssignableFrom(raw)) {
                require(node.isArray(), node, type, path, struct);
                for (int i = 0; i < node.size(); i++) {
                    value(node.get(i), arguments[0], path.element(i), struct, unknown);
                }
            } else if (Map.class.isAssignableFrom(raw)) {
                require(node.isObject(), node, type, path, struct);
                for (Map.Entry<String, JsonNode> entry : node.properties()) {
                    value(entry.getValue(), arguments[1], path.key(entry.getKey()), struct, unknown);
                }
            }
            return;
        }
        if (!(type instanceof Class<?> c) || c == Object.class || c.isInterface() || c == AnyType.class) {
            return;
        }
        // fabric8 writes a Lease's metav1.MicroTime fields as ZonedDateTime: a string in JSON all the same
        if (c == String.class || c == MicroTime.class || c == Duration.class || Temporal.class.isAssignableFrom(c)) {
            require(node.isString(), node, type, path, struct);
        } else if (c == Integer.class) {
            require(node.isIntegralNumber() && node.canConvertToInt(), node, type, path, struct);
        } else if (c == Long.class) {
            require(node.isIntegralNumber() && node.canConvertToLong(), node, type, path, struct);
        } else if (c == Boolean.class) {
            require(node.isBoolean(), node, type, path, struct);
        } else if (c == Double.class || c == Float.class) {
            require(node.isNumber(), node, type, path, struct);
        } else if (c == Quantity.class) {
            if (!node.isString() && !node.isNumber()) {
                throw new DecodingException(QUANTITY_FORMAT);
            }
        } else if (c == IntOrString.class) {
            require(node.isString() || node.isIntegralNumber() && node.canConvertToInt(), node, type, path, struct);
        } else {
            require(node.isObject(), node, type, path, struct);
            struct((ObjectNode) node, c, path, unknown);
        }
    }

    private void struct(ObjectNode node, Class<?> type, FieldPath path, List<String> unknown) {
        StructFields fields = StructFields.of(type);
        if (fields.fields().isEmpty()) {
            return;
        }
        List<String> dropped = null;
        for (Map.Entry<String, JsonNode> entry : node.properties()) {
            FieldPath fieldPath = path.field(entry.getKey());
            Type fieldType = fields.fields().get(entry.getKey());
            if (fieldType == null) {
                unknown.add(fieldPath.withIndices());
            } else if (!entry.getValue().isNull()) {
                value(entry.getValue(), fieldType, fieldPath, fields.simpleName(), unknown);
                continue;
            }
            // an unknown field is dropped, and so is a null: Go leaves the field unset and omits it when writing
            dropped = dropped == null ? new ArrayList<>() : dropped;
            dropped.add(entry.getKey());
        }
        if (dropped != null) {
            node.remove(dropped);
        }
    }

    private static void require(boolean accepted, JsonNode node, Type type, FieldPath path, String struct) {
        if (!accepted) {
            throw new DecodingException(String.format("json: cannot unmarshal %s into Go struct field %s.%s of type %s",
                    describe(node, type), struct, path.fieldsOnly(), goType(type)));
        }
    }

    /** The JSON value as Go's decoder names it; a number refused by an integer field shows its literal. */
    private static String describe(JsonNode node, Type type) {
        if (node.isString()) {
            return "string";
        }
        if (node.isBoolean()) {
            return "bool";
        }
        if (node.isNumber()) {
            return type == Integer.class || type == Long.class || type == IntOrString.class ? "number " + node : "number";
        }
        return node.isArray() ? "array" : "object";
    }

    private static String goType(Type type) {
        if (type instanceof ParameterizedType parameterized) {
            Type[] arguments = parameterized.getActualTypeArguments();
            return List.class.isAssignableFrom((Class<?>) parameterized.getRawType())
                    ? "[]" + goType(arguments[0])
                    : "map[string]" + goType(arguments[1]);
        }
        if (!(type instanceof Class<?> c)) {
            return "interface {}";
        }
        return switch (c.getSimpleName()) {
            case "String" -> "string";
            case "Integer" -> "int32";
            case "Long" -> "int64";
            case "Boolean" -> "bool";
            case "Double" -> "float64";
            case "Float" -> "float32";
            case "IntOrString" -> "intstr.IntOrString";
            default -> Temporal.class.isAssignableFrom(c) ? "v1.MicroTime" : StructFields.of(c).goName();
        };
    }
}
