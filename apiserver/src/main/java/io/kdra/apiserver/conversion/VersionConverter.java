package io.kdra.apiserver.conversion;

import tools.jackson.databind.node.ObjectNode;

/**
 * Converts objects of one group and kind between the versions the API server serves, so that every version reads
 * and writes the same stored object (kept in the storage version).
 */
public interface VersionConverter {

    /**
     * @param object an object whose {@code apiVersion} is any served version of the kind
     * @param targetVersion the version wanted, e.g. {@code v1beta1}
     * @return a new object in the target version, {@code apiVersion} included; the input is not modified
     */
    ObjectNode convert(ObjectNode object, String targetVersion);
}
