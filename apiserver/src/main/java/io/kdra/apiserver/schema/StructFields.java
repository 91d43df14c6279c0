package io.kdra.apiserver.schema;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The JSON fields of one model class and the Java type of each, read once per class from its {@link JsonProperty}
 * annotations; the catch-all {@code additionalProperties} of fabric8 classes is not a field.
 *
 * @param goName the Go type name, e.g. {@code v1.DeviceRequest}, as decoding errors print it
 * @param fields JSON field name to Java type
 */
record StructFields(String goName, Map<String, Type> fields) {

    private static final Pattern VERSION = Pattern.compile("v\\d+((alpha|beta)\\d+)?");
    private static final ClassValue<StructFields> CACHE = new ClassValue<>() {
        @Override
        protected StructFields computeValue(Class<?> type) {
            return read(type);
        }
    };

    static StructFields of(Class<?> type) {
        return CACHE.get(type);
    }

    /** @return the struct's name alone, e.g. {@code DeviceRequest}, as Go names the struct holding a field */
    String simpleName() {
        return goName.substring(goName.indexOf('.') + 1);
    }

    private static StructFields read(Class<?> type) {
        Map<String, Type> fields = new HashMap<>();
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            for (Field field : c.getDeclaredFields()) {
                JsonProperty property = field.getAnnotation(JsonProperty.class);
                if (property == null || Modifier.isStatic(field.getModifiers())
                        || field.isAnnotationPresent(JsonIgnore.class)) {
                    continue;
                }
                String name = property.value().isEmpty() ? field.getName() : property.value();
                fields.putIfAbsent(name, field.getGenericType());
            }
        }
        return new StructFields(packageAlias(type) + "." + type.getSimpleName(), Map.copyOf(fields));
    }

    /** The last element of the Go import path: the version, {@code v1} for the unversioned fabric8 packages. */
    private static String packageAlias(Class<?> type) {
        String packageName = type.getPackageName();
        String last = packageName.substring(packageName.lastIndexOf('.') + 1);
        return VERSION.matcher(last).matches() ? last : "v1";
    }
}
