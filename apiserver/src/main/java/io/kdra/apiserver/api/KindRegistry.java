package io.kdra.apiserver.api;

import io.kdra.apiserver.conversion.EventConversion;
import io.kdra.apiserver.conversion.VersionConverter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.UnaryOperator;
import tools.jackson.databind.node.ObjectNode;

/**
 * The served kinds with the plug-ins registered for them: defaulters, version converters and validators, keyed by
 * group and kind. This is where kind-specific semantics enter a server that otherwise knows nothing about the kinds
 * it stores.
 */
public final class KindRegistry {

    /** How a resource that serves another's stored objects converts to and from the owner's storage version. */
    private record OwnerConversion(UnaryOperator<ObjectNode> toOwner, UnaryOperator<ObjectNode> fromOwner) {}

    private static final Map<String, OwnerConversion> OWNER_CONVERSIONS = Map.of(
            key("events.k8s.io", "Event"), new OwnerConversion(EventConversion::toCore, EventConversion::fromCore));

    private final List<ResourceType> types;
    private final Map<String, List<ObjectValidator>> validators;
    private final Map<String, VersionConverter> converters;
    private final Map<String, UnaryOperator<ObjectNode>> defaulters;
    private final Map<String, DisabledFields> disabledFields;

    private KindRegistry(Builder builder) {
        this.types = BuiltinResources.all().stream()
                .filter(type -> !builder.unserved.contains(key(type.group(), type.kind()))).toList();
        Map<String, List<ObjectValidator>> frozen = new HashMap<>();
        builder.validators.forEach((key, list) -> frozen.put(key, List.copyOf(list)));
        this.validators = Map.copyOf(frozen);
        this.converters = Map.copyOf(builder.converters);
        this.defaulters = Map.copyOf(builder.defaulters);
        this.disabledFields = Map.copyOf(builder.disabledFields);
        for (ResourceType type : types) {
            if (type.versions().size() > 1 && !converters.containsKey(key(type.group(), type.kind()))) {
                throw new IllegalStateException(type.groupKind() + " is served in " + type.versions()
                        + " but has no version converter");
            }
            if (!type.ownsStorage() && !OWNER_CONVERSIONS.containsKey(key(type.group(), type.kind()))) {
                throw new IllegalStateException(type.groupKind() + " serves the objects of "
                        + type.storageOwner().groupKind() + " but has no conversion to them");
            }
        }
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

    /**
     * Drops the fields of disabled features from an object being written, unless the stored object uses them.
     *
     * @param old the stored object, or null on create
     */
    public void dropDisabledFields(ResourceType type, ObjectNode object, ObjectNode old) {
        DisabledFields fields = disabledFields.get(key(type.group(), type.kind()));
        if (fields != null) {
            fields.drop(object, old);
        }
    }

    public List<ObjectValidator> validators(ResourceType type) {
        return validators.getOrDefault(key(type.group(), type.kind()), List.of());
    }

    /**
     * Decodes a written object as kube-apiserver does: defaults in the version it was sent in, then conversion.
     *
     * @param version the version of {@code object}
     * @return the defaulted object in the storage version (the storage owner's, if the type has one); the input is
     *     not modified
     */
    public ObjectNode toStorage(ResourceType type, ObjectNode object, String version) {
        UnaryOperator<ObjectNode> defaulter = defaulters.get(key(type.group(), type.kind()));
        ObjectNode defaulted = defaulter == null ? object : defaulter.apply(object);
        ObjectNode converted;
        try {
            converted = convert(type, defaulted, version, type.storageVersion());
        } catch (IllegalArgumentException e) {
            throw ApiException.badRequest(e.getMessage());
        }
        return type.ownsStorage() ? converted : ownerConversion(type).toOwner().apply(converted);
    }

    /** @return the stored object in the requested version; the input is not modified */
    public ObjectNode fromStorage(ResourceType type, ObjectNode stored, String version) {
        ObjectNode own = type.ownsStorage() ? stored : ownerConversion(type).fromOwner().apply(stored);
        return convert(type, own, type.storageVersion(), version);
    }

    private static OwnerConversion ownerConversion(ResourceType type) {
        return OWNER_CONVERSIONS.get(key(type.group(), type.kind()));
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

    private static DisabledFields both(DisabledFields first, DisabledFields second) {
        return (object, old) -> {
            first.drop(object, old);
            second.drop(object, old);
        };
    }

    private static String key(String group, String kind) {
        return group + "/" + kind;
    }

    /** Collects the plug-ins; several validators per kind run in registration order. */
    public static final class Builder {
        private final Map<String, List<ObjectValidator>> validators = new HashMap<>();
        private final Map<String, VersionConverter> converters = new HashMap<>();
        private final Map<String, UnaryOperator<ObjectNode>> defaulters = new HashMap<>();
        private final Map<String, DisabledFields> disabledFields = new HashMap<>();
        private final Set<String> unserved = new HashSet<>();

        private Builder() {}

        /** Withholds a built-in kind, as kube-apiserver withholds the resources of a disabled feature. */
        public Builder unserved(String group, String kind) {
            unserved.add(key(group, kind));
            return this;
        }

        public Builder validator(String group, String kind, ObjectValidator validator) {
            validators.computeIfAbsent(key(group, kind), k -> new ArrayList<>()).add(validator);
            return this;
        }

        /** Replaces the kind's converter, if it had one. */
        public Builder converter(String group, String kind, VersionConverter converter) {
            converters.put(key(group, kind), converter);
            return this;
        }

        /**
         * Replaces the kind's defaulter, if it had one.
         *
         * @param defaulter returns a defaulted copy of an object in any served version of the kind
         */
        public Builder defaulter(String group, String kind, UnaryOperator<ObjectNode> defaulter) {
            defaulters.put(key(group, kind), defaulter);
            return this;
        }

        /** Adds a dropping of the fields of disabled features to the kind's, after those it has. */
        public Builder disabledFields(String group, String kind, DisabledFields fields) {
            disabledFields.merge(key(group, kind), fields, KindRegistry::both);
            return this;
        }

        /**
         * Adds the other builder's validators and droppers of disabled fields after these and takes over its
         * converters, defaulters and withheld kinds.
         */
        public Builder addAll(Builder other) {
            other.validators.forEach((key, list) -> validators.computeIfAbsent(key, k -> new ArrayList<>()).addAll(list));
            converters.putAll(other.converters);
            defaulters.putAll(other.defaulters);
            other.disabledFields.forEach((key, fields) ->
                    disabledFields.merge(key, fields, KindRegistry::both));
            unserved.addAll(other.unserved);
            return this;
        }

        public KindRegistry build() {
            return new KindRegistry(this);
        }
    }
}
