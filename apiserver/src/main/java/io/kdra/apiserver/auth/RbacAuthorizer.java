package io.kdra.apiserver.auth;

import io.kdra.apiserver.json.Json;
import io.kdra.apiserver.storage.Store;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Role-based access control over the stored rbac.authorization.k8s.io objects, as kube-apiserver's RBAC authorizer
 * evaluates them: {@code system:masters} may do anything; otherwise a ClusterRoleBinding, or a RoleBinding in the
 * request's namespace, must bind a subject matching the user (by name, group, or service account) to a role with a
 * rule that matches group, resource (also as {@code *}, or {@code *} followed by the subresource), verb and, when
 * the rule names any, the resource name. Rules are read on each call, so a changed role applies at once.
 */
public final class RbacAuthorizer implements Authorizer {

    private static final String GROUP = "rbac.authorization.k8s.io/";
    private static final String SUPERUSERS = "system:masters";
    /**
     * The control plane's own identities, which kube-apiserver's bootstrap policy grants what their controllers need
     * (the resourceclaim controller removes deallocated devices' status entries of every driver); the server keeps
     * no bootstrap roles, so it allows them everything.
     */
    private static final Set<String> CONTROL_PLANE_USERS =
            Set.of("system:kube-controller-manager", "system:kube-scheduler");
    private static final String SERVICE_ACCOUNT_PREFIX = "system:serviceaccount:";

    private final Store store;

    public RbacAuthorizer(Store store) {
        this.store = store;
    }

    @Override
    public Decision authorize(Attributes attributes) {
        if (attributes.user().groups().contains(SUPERUSERS) || CONTROL_PLANE_USERS.contains(attributes.user().name())) {
            return Decision.ALLOW;
        }
        for (ObjectNode binding : store.list(GROUP + "clusterrolebindings", null).items()) {
            if (binds(binding, attributes.user(), null) && allows(role(binding, null), attributes)) {
                return Decision.ALLOW;
            }
        }
        if (!attributes.namespace().isEmpty()) {
            for (ObjectNode binding : store.list(GROUP + "rolebindings", attributes.namespace()).items()) {
                if (binds(binding, attributes.user(), attributes.namespace())
                        && allows(role(binding, attributes.namespace()), attributes)) {
                    return Decision.ALLOW;
                }
            }
        }
        return new Decision(false, "");
    }

    private JsonNode role(ObjectNode binding, String namespace) {
        String kind = Json.text(binding, "roleRef", "kind");
        String name = Json.text(binding, "roleRef", "name");
        if (name == null) {
            return null;
        }
        return "Role".equals(kind) && namespace != null ? store.get(GROUP + "roles", namespace, name)
                : "ClusterRole".equals(kind) ? store.get(GROUP + "clusterroles", null, name) : null;
    }

    private static boolean binds(ObjectNode binding, UserInfo user, String bindingNamespace) {
        for (JsonNode subject : binding.path("subjects")) {
            String kind = subject.path("kind").asString("");
            String name = subject.path("name").asString("");
            boolean matches = switch (kind) {
                case "User" -> name.equals(user.name());
                case "Group" -> user.groups().contains(name);
                case "ServiceAccount" -> {
                    String namespace = subject.path("namespace").asString("");
                    if (namespace.isEmpty() && bindingNamespace != null) {
                        namespace = bindingNamespace;
                    }
                    yield user.name().equals(SERVICE_ACCOUNT_PREFIX + namespace + ":" + name);
                }
                default -> false;
            };
            if (matches) {
                return true;
            }
        }
        return false;
    }

    private static boolean allows(JsonNode role, Attributes attributes) {
        if (role == null) {
            return false;
        }
        for (JsonNode rule : role.path("rules")) {
            if (contains(rule.path("apiGroups"), attributes.group())
                    && resourceMatches(rule.path("resources"), attributes)
                    && contains(rule.path("verbs"), attributes.verb())
                    && nameMatches(rule.path("resourceNames"), attributes.name())) {
                return true;
            }
        }
        return false;
    }

    private static boolean contains(JsonNode values, String value) {
        for (JsonNode item : values) {
            String text = item.asString("");
            if (text.equals("*") || text.equals(value)) {
                return true;
            }
        }
        return false;
    }

    private static boolean resourceMatches(JsonNode resources, Attributes attributes) {
        String combined = attributes.subresource().isEmpty() ? attributes.resource()
                : attributes.resource() + "/" + attributes.subresource();
        for (JsonNode item : resources) {
            String text = item.asString("");
            if (text.equals("*") || text.equals(combined)
                    || (!attributes.subresource().isEmpty() && text.equals("*/" + attributes.subresource()))) {
                return true;
            }
        }
        return false;
    }

    private static boolean nameMatches(JsonNode names, String name) {
        if (names.isEmpty()) {
            return true;
        }
        for (JsonNode item : names) {
            if (item.asString("").equals(name)) {
                return true;
            }
        }
        return false;
    }
}
