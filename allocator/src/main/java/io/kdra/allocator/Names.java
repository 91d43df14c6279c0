package io.kdra.allocator;

import io.fabric8.kubernetes.api.model.HasMetadata;

/** How upstream spells object and attribute names in messages and lookups. */
final class Names {

    private Names() {}

    /** klog.KObj: {@code namespace/name}, or just the name for cluster-scoped objects. */
    static String of(HasMetadata object) {
        if (object.getMetadata() == null) {
            return "";
        }
        String namespace = object.getMetadata().getNamespace();
        String name = object.getMetadata().getName();
        return namespace == null || namespace.isEmpty() ? String.valueOf(name) : namespace + "/" + name;
    }

    /** A qualified name with the domain filled in: names without a domain belong to the driver. */
    static String qualify(String name, String driver) {
        return name.indexOf('/') >= 0 ? name : driver + "/" + name;
    }
}
