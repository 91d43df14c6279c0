package io.kdra.apiserver.api;

import io.kdra.apiserver.conversion.VersionConverter;
import io.kdra.apiserver.validation.ObjectValidator;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import tools.jackson.databind.node.ObjectNode;

/**
 * The served kinds with the plug-ins registered for them: validators and version converters, keyed by group and kind.
 * This is where kind-specific semantics enter a server that otherwise knows nothing about the kinds it stores.
 */
public final class KindRegistry {

    private final List<ResourceType> types;
    private final Map<String, List<ObjectValidator>> validators;
    private final Map<String, VersionConverter> converters;

    private KindRegistry(Builder builder) {
        Set<String> convertible = new HashSet<>();
        for (String groupKind : builder.converters.keySet()) {
            if (groupKind.startsWith(BuiltinResources.RESOURCE_GROUP + "/")) {
                convertible.add(groupKind.substring(BuiltinResources.RESOURCE_GROUP.length() + 1));
            }
        }
        this.types = List.copyOf(BuiltinResources.all(convertible));
        this.validators = Map.copyOf(builder.validators);
        this.converters = Map.copyOf(builder.converters);
    }

    public static Builder builder() {
        return new Builder();
    }

    public List<ResourceType> types() {
        return types;
    }

    /** @return the resource served at {@code /apis/<group>/<version>/<plural>} */
    public Optional<ResourceType> find(String group, String version, String plural) {
        for (ResourceType type : types) {
            if (type.group().equals(group) && type.plural().equals(plural) && type.serves(version)) {
                return Optional.of(type);
            }
        }
        return Optional.empty();
    }

    public Optional<ResourceType> findByKind(String group, String kind) {
        for (ResourceType type : types) {
            if (type.group().equals(group) && type.kind().equals(kind)) {
                return Optional.of(type);
            }
        }
        return Optional.empty();
    }

    public List<ObjectValidator> validators(ResourceType type) {
        return validators.getOrDefault(key(type.group(), type.kind()), List.of());
    }

    /** @return the object in the storage version; the input is not modified */
    public ObjectNode toStorage(ResourceType type, ObjectNode object, String version) {
        return convert(type, object, version, type.storageVersion());
    }

    /** @return the stored object in the requested version; the input is not modified */
    public ObjectNode fromStorage(ResourceType type, ObjectNode stored, String version) {
        return convert(type, stored, type.storageVersion(), version);
    }

    private ObjectNode convert(ResourceType type, ObjectNode object, String from, String to) {
        if (from.equals(to)) {
            return object;
        }
        VersionConverter converter = converters.get(key(type.group(), type.kind()));
        if (converter == null) {
            throw ApiException.internal("no converter for " + type.groupKind() + " from " + from + " to " + to);
        }
        return converter.convert(object, to);
    }

    private static String key(String group, String kind) {
        return group + "/" + kind;
    }

    /** Collects the plug-ins; several validators per kind run in registration order. */
    public static final class Builder {
        private final Map<String, List<ObjectValidator>> validators = new HashMap<>();
        private final Map<String, VersionConverter> converters = new HashMap<>();

        private Builder() {}

        public Builder validator(String group, String kind, ObjectValidator validator) {
            validators.computeIfAbsent(key(group, kind), k -> new ArrayList<>()).add(validator);
            return this;
        }

        public Builder converter(String group, String kind, VersionConverter converter) {
            converters.put(key(group, kind), converter);
            return this;
        }

        public KindRegistry build() {
            validators.replaceAll((k, list) -> List.copyOf(list));
            return new KindRegistry(this);
        }
    }
}
