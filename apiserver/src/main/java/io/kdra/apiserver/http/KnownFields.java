package io.kdra.apiserver.http;

import io.kdra.apiserver.api.ResourceType;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The fields strict decoding knows: the top level of every kind and all of {@code metadata}. Fields below the top
 * level (spec, status ...) are not checked: the server keeps no full schema of the kinds.
 */
final class KnownFields {

    private static final Set<String> COMMON = Set.of("apiVersion", "kind", "metadata");
    private static final Set<String> SPEC_AND_STATUS = Set.of("spec", "status");
    private static final Map<String, Set<String>> TOP_LEVEL = Map.of(
            "/ConfigMap", Set.of("data", "binaryData", "immutable"),
            "/Secret", Set.of("data", "stringData", "type", "immutable"),
            "/ServiceAccount", Set.of("secrets", "imagePullSecrets", "automountServiceAccountToken"),
            "/Event", Set.of("involvedObject", "reason", "message", "source", "firstTimestamp", "lastTimestamp",
                    "count", "type", "eventTime", "series", "action", "related", "reportingComponent",
                    "reportingInstance"),
            "events.k8s.io/Event", Set.of("eventTime", "series", "reportingController", "reportingInstance", "action",
                    "reason", "regarding", "related", "note", "type", "deprecatedSource", "deprecatedFirstTimestamp",
                    "deprecatedLastTimestamp", "deprecatedCount"),
            "rbac.authorization.k8s.io/Role", Set.of("rules"),
            "rbac.authorization.k8s.io/ClusterRole", Set.of("rules", "aggregationRule"),
            "rbac.authorization.k8s.io/RoleBinding", Set.of("subjects", "roleRef"),
            "rbac.authorization.k8s.io/ClusterRoleBinding", Set.of("subjects", "roleRef"));
    private static final Set<String> METADATA = Set.of("name", "generateName", "namespace", "selfLink", "uid",
            "resourceVersion", "generation", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds",
            "labels", "annotations", "ownerReferences", "finalizers", "managedFields");

    private KnownFields() {}

    /** @return the paths of the fields the kind does not have, e.g. {@code spek} or {@code metadata.lables} */
    static List<String> unknown(ResourceType type, ObjectNode object) {
        Set<String> allowed = TOP_LEVEL.getOrDefault(type.group() + "/" + type.kind(), SPEC_AND_STATUS);
        List<String> unknown = new ArrayList<>();
        for (String field : object.propertyNames()) {
            if (!COMMON.contains(field) && !allowed.contains(field)) {
                unknown.add(field);
            }
        }
        JsonNode metadata = object.get("metadata");
        if (metadata != null && metadata.isObject()) {
            for (String field : metadata.propertyNames()) {
                if (!METADATA.contains(field)) {
                    unknown.add("metadata." + field);
                }
            }
        }
        return unknown;
    }
}
