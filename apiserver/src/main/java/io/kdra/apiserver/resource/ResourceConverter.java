package io.kdra.apiserver.resource;

import io.kdra.apiserver.conversion.VersionConverter;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Converts one resource.k8s.io kind between its served versions by way of its storage version, as kube-apiserver
 * does through the internal version. Versions without an entry in the reshaping maps have the storage version's
 * shape.
 */
final class ResourceConverter implements VersionConverter {

    static final String GROUP = "resource.k8s.io";

    private final String kind;
    private final List<String> servedVersions;
    private final Map<String, Consumer<ObjectNode>> toStorage;
    private final Map<String, Consumer<ObjectNode>> fromStorage;

    /**
     * @param toStorage   per served version, turns an object of that version into the storage version's shape
     * @param fromStorage per served version, turns an object of the storage version's shape into that version's
     */
    ResourceConverter(String kind, List<String> servedVersions, Map<String, Consumer<ObjectNode>> toStorage,
                      Map<String, Consumer<ObjectNode>> fromStorage) {
        this.kind = kind;
        this.servedVersions = List.copyOf(servedVersions);
        this.toStorage = Map.copyOf(toStorage);
        this.fromStorage = Map.copyOf(fromStorage);
    }

    /**
     * @throws IllegalArgumentException when the object is not of this kind, its {@code apiVersion} is missing or not
     *                                  served, or the target version is not served
     */
    @Override
    public ObjectNode convert(ObjectNode object, String targetVersion) {
        String sourceVersion = sourceVersion(object);
        if (!servedVersions.contains(targetVersion)) {
            throw new IllegalArgumentException(notServed(GROUP + "/" + targetVersion));
        }
        ObjectNode converted = object.deepCopy();
        if (!sourceVersion.equals(targetVersion)) {
            toStorage.getOrDefault(sourceVersion, unchanged -> { }).accept(converted);
            fromStorage.getOrDefault(targetVersion, unchanged -> { }).accept(converted);
        }
        converted.put("apiVersion", GROUP + "/" + targetVersion);
        return converted;
    }

    private String sourceVersion(ObjectNode object) {
        JsonNode kindNode = object.get("kind");
        if (kindNode != null && !kindNode.isNull() && !kind.equals(kindNode.asString(""))) {
            throw new IllegalArgumentException("cannot convert a " + kindNode + " with the " + kind + " converter");
        }
        JsonNode apiVersion = object.get("apiVersion");
        if (apiVersion == null || !apiVersion.isString() || apiVersion.stringValue().isEmpty()) {
            throw new IllegalArgumentException(kind + " to convert has no apiVersion");
        }
        String text = apiVersion.stringValue();
        String version = text.startsWith(GROUP + "/") ? text.substring(GROUP.length() + 1) : "";
        if (!servedVersions.contains(version)) {
            throw new IllegalArgumentException(notServed(text));
        }
        return version;
    }

    private String notServed(String apiVersion) {
        return "apiVersion " + apiVersion + " is not served for " + kind + "; served are "
                + String.join(", ", servedVersions.stream().map(version -> GROUP + "/" + version).toList());
    }
}
