package io.kdra.plugin.metadata;

import java.util.Optional;

/**
 * A schema version of the device metadata files, as upstream's
 * {@code k8s.io/dynamic-resource-allocation/api/metadata}.
 */
public enum MetadataVersion {
    /** {@code metadata.resource.k8s.io/v1alpha1}, the first version (Kubernetes 1.36), for older readers. */
    V1ALPHA1("metadata.resource.k8s.io/v1alpha1"),
    /** {@code metadata.resource.k8s.io/v1beta1} (Kubernetes 1.37), the version readers are told to expect. */
    V1BETA1("metadata.resource.k8s.io/v1beta1");

    /** The group of both versions. */
    public static final String GROUP = "metadata.resource.k8s.io";
    /** The kind of every object in a metadata file. */
    public static final String KIND = "DeviceMetadata";

    private final String apiVersion;

    MetadataVersion(String apiVersion) {
        this.apiVersion = apiVersion;
    }

    /** {@code <group>/<version>}, the {@code apiVersion} of the encoded objects. */
    public String apiVersion() {
        return apiVersion;
    }

    /** The version an {@code apiVersion} names, empty for one this library does not know. */
    public static Optional<MetadataVersion> of(String apiVersion) {
        for (MetadataVersion version : values()) {
            if (version.apiVersion.equals(apiVersion)) {
                return Optional.of(version);
            }
        }
        return Optional.empty();
    }

    @Override
    public String toString() {
        return apiVersion;
    }
}
