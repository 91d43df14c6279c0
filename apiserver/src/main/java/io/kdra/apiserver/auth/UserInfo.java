package io.kdra.apiserver.auth;

import java.util.List;
import java.util.Map;

/** The identity a request acts as, after authentication and impersonation (k8s.io/apiserver user.Info). */
public record UserInfo(String name, String uid, List<String> groups, Map<String, List<String>> extra) {

    /** The extra key a node-bound service account token carries (ServiceAccountTokenNodeBinding). */
    public static final String NODE_NAME_EXTRA = "authentication.kubernetes.io/node-name";

    public UserInfo {
        groups = List.copyOf(groups);
        extra = Map.copyOf(extra);
    }

    /** @return the node this identity is bound to, or null */
    public String boundNodeName() {
        List<String> values = extra.get(NODE_NAME_EXTRA);
        return values == null || values.isEmpty() ? null : values.get(0);
    }
}
