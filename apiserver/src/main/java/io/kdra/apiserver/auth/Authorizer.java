package io.kdra.apiserver.auth;

/**
 * Decides whether an identity may do one thing (k8s.io/apiserver authorizer.Authorizer). The server asks it for the
 * checks its storage strategies make, such as the per-driver permission to write a claim's device status.
 */
public interface Authorizer {

    /**
     * What is asked, as kube-apiserver's authorizer.Attributes for a resource request.
     *
     * @param subresource empty for the main resource
     * @param namespace empty for cluster-scoped objects and cluster-wide checks
     * @param name empty for every name
     */
    record Attributes(UserInfo user, String verb, String group, String resource, String subresource,
            String namespace, String name) {

        /** kube-apiserver's wording of a denial of these attributes, without the reason. */
        public String denial() {
            String resourceName = subresource.isEmpty() ? resource : resource + "/" + subresource;
            String message = String.format("User \"%s\" cannot %s resource \"%s\" in API group \"%s\"", user.name(),
                    verb, resourceName, group);
            return namespace.isEmpty() ? message + " at the cluster scope"
                    : message + String.format(" in the namespace \"%s\"", namespace);
        }
    }

    /** @param reason why, when not allowed; may be empty */
    record Decision(boolean allowed, String reason) {

        public static final Decision ALLOW = new Decision(true, "");
    }

    Decision authorize(Attributes attributes);
}
