package io.kdra.apiserver.schema;

import java.util.Map;
import java.util.Optional;

/**
 * Where the fabric8 model keeps the class of a kind. fabric8 generates its model from the upstream OpenAPI, so a class
 * names the same fields, with the same JSON types, as the Go type kube-apiserver decodes into.
 */
final class ModelClasses {

    private static final String MODEL = "io.fabric8.kubernetes.api.model";
    /** Packages whose names hold no version: fabric8 keeps the group's v1 classes there. */
    private static final Map<String, String> UNVERSIONED = Map.of(
            "", MODEL,
            "apps", MODEL + ".apps",
            "rbac.authorization.k8s.io", MODEL + ".rbac");
    /** Packages that end in the version, e.g. {@code ...resource.v1beta2}. */
    private static final Map<String, String> VERSIONED = Map.of(
            "resource.k8s.io", MODEL + ".resource",
            "coordination.k8s.io", MODEL + ".coordination",
            "events.k8s.io", MODEL + ".events",
            "admissionregistration.k8s.io", MODEL + ".admissionregistration",
            "policy", MODEL + ".policy",
            "autoscaling", MODEL + ".autoscaling",
            "batch", MODEL + ".batch",
            "scheduling.k8s.io", MODEL + ".scheduling");

    private ModelClasses() {}

    static Optional<Class<?>> find(String group, String version, String kind) {
        String className;
        if (UNVERSIONED.containsKey(group) && version.equals("v1")) {
            className = UNVERSIONED.get(group) + "." + kind;
        } else if (VERSIONED.containsKey(group)) {
            className = VERSIONED.get(group) + "." + version + "." + kind;
        } else {
            return Optional.empty();
        }
        try {
            return Optional.of(Class.forName(className, false, ModelClasses.class.getClassLoader()));
        } catch (ClassNotFoundException e) {
            return Optional.empty();
        }
    }
}
