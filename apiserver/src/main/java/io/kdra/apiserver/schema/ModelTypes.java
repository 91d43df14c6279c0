package io.kdra.apiserver.schema;

import java.lang.reflect.Type;
import java.util.Map;
import java.util.Optional;

/**
 * The shapes of the fabric8 model for code outside decoding: which class models a kind, and which JSON fields a class
 * has with their Java types (a {@code List<X>} or {@code Map<String, X>} for lists and maps).
 */
public final class ModelTypes {

    private ModelTypes() {}

    /** @return the class of the kind in the version, empty when the model has none */
    public static Optional<Class<?>> kindClass(String group, String version, String kind) {
        return ModelClasses.find(group, version, kind);
    }

    /** @return the JSON field names of the class and their Java types; empty for a scalar class */
    public static Map<String, Type> fields(Class<?> type) {
        return StructFields.of(type).fields();
    }
}
