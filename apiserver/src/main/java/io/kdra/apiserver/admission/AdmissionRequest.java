package io.kdra.apiserver.admission;

import io.kdra.apiserver.api.ResourceType;
import io.kdra.apiserver.auth.UserInfo;
import tools.jackson.databind.node.ObjectNode;

/**
 * One write as admission sees it (k8s.io/apiserver admission.Attributes). Objects are in the storage version;
 * {@code object} is null for DELETE, {@code oldObject} null for CREATE.
 */
public record AdmissionRequest(
        Operation operation,
        ResourceType type,
        String subresource,
        String namespace,
        String name,
        ObjectNode object,
        ObjectNode oldObject,
        UserInfo user,
        boolean dryRun) {

    public enum Operation {
        CREATE,
        UPDATE,
        DELETE
    }
}
