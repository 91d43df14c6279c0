package io.kdra.apiserver.auth;

import io.kdra.apiserver.api.ApiException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The {@code Impersonate-*} headers: the request then acts as the named user, with the given groups and extra
 * values. A service account user gets its fixed groups when none are given, and every impersonated user is in
 * {@code system:authenticated}. Every authenticated identity may impersonate (the server has no RBAC).
 */
public final class Impersonation {

    public static final String USER = "Impersonate-User";
    public static final String UID = "Impersonate-Uid";
    public static final String GROUP = "Impersonate-Group";
    public static final String EXTRA_PREFIX = "Impersonate-Extra-";

    private static final String SERVICE_ACCOUNT_PREFIX = "system:serviceaccount:";

    private Impersonation() {}

    /**
     * @param headers the request headers as (name, value) pairs; names compared case-insensitively
     * @return the impersonated identity, or {@code requester} when the request impersonates no one
     */
    public static UserInfo apply(UserInfo requester, List<Map.Entry<String, String>> headers) {
        String user = null;
        String uid = "";
        List<String> groups = new ArrayList<>();
        Map<String, List<String>> extra = new LinkedHashMap<>();
        List<String> requested = new ArrayList<>();
        for (Map.Entry<String, String> header : headers) {
            String name = header.getKey();
            if (name.equalsIgnoreCase(USER)) {
                user = header.getValue();
            } else if (name.equalsIgnoreCase(UID)) {
                uid = header.getValue();
                requested.add("uid " + header.getValue());
            } else if (name.equalsIgnoreCase(GROUP)) {
                groups.add(header.getValue());
                requested.add("group " + header.getValue());
            } else if (name.regionMatches(true, 0, EXTRA_PREFIX, 0, EXTRA_PREFIX.length())) {
                String key = URLDecoder.decode(name.substring(EXTRA_PREFIX.length()), StandardCharsets.UTF_8)
                        .toLowerCase(Locale.ROOT);
                extra.computeIfAbsent(key, k -> new ArrayList<>()).add(header.getValue());
                requested.add("extra " + key + "=" + header.getValue());
            }
        }
        if (user == null || user.isEmpty()) {
            if (!requested.isEmpty()) {
                throw ApiException.internal("requested " + requested + " without impersonating a user");
            }
            return requester;
        }
        boolean groupsGiven = !groups.isEmpty();
        if (!groupsGiven && user.startsWith(SERVICE_ACCOUNT_PREFIX)) {
            String[] parts = user.substring(SERVICE_ACCOUNT_PREFIX.length()).split(":", 2);
            if (parts.length == 2) {
                groups.add("system:serviceaccounts");
                groups.add("system:serviceaccounts:" + parts[0]);
            }
        }
        if (!groupsGiven && !user.equals("system:anonymous") && !groups.contains("system:authenticated")) {
            groups.add("system:authenticated");
        }
        return new UserInfo(user, uid, groups, extra);
    }
}
