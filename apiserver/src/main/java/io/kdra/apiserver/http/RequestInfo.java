package io.kdra.apiserver.http;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * A resource request's place in the URL space, parsed as kube-apiserver's RequestInfoFactory does:
 * {@code /api/v1/namespaces/<ns>/<resource>/<name>/<subresource>} and {@code /apis/<group>/<version>/...};
 * {@code /api/v1/watch/...} marks a watch.
 */
record RequestInfo(String group, String version, String namespace, String resource, String name, String subresource,
        boolean legacyWatch) {

    private static final Set<String> NAMESPACE_SUBRESOURCES = Set.of("status", "finalize");

    /** @return the parsed request, or null when the path is not a resource path (discovery, health ...) */
    static RequestInfo parse(String path) {
        List<String> parts = segments(path);
        String group;
        if (parts.size() >= 3 && parts.get(0).equals("api")) {
            group = "";
            parts = parts.subList(1, parts.size());
        } else if (parts.size() >= 4 && parts.get(0).equals("apis")) {
            group = parts.get(1);
            parts = parts.subList(2, parts.size());
        } else {
            return null;
        }
        String version = parts.get(0);
        parts = parts.subList(1, parts.size());
        boolean watch = false;
        if (!parts.isEmpty() && parts.get(0).equals("watch")) {
            watch = true;
            parts = parts.subList(1, parts.size());
        }
        if (parts.isEmpty()) {
            return null;
        }
        String namespace = null;
        if (parts.get(0).equals("namespaces") && parts.size() > 1) {
            namespace = parts.get(1);
            if (parts.size() > 2 && !NAMESPACE_SUBRESOURCES.contains(parts.get(2))) {
                parts = parts.subList(2, parts.size());
            }
        }
        if (parts.size() > 3) {
            return null;
        }
        String resource = parts.get(0);
        String name = parts.size() > 1 ? parts.get(1) : null;
        String subresource = parts.size() > 2 ? parts.get(2) : null;
        return new RequestInfo(group, version, namespace, resource, name, subresource, watch);
    }

    /** @return the path's non-empty segments: repeated, leading and trailing slashes delimit nothing */
    private static List<String> segments(String path) {
        List<String> segments = new ArrayList<>();
        int start = 0;
        for (int i = 0; i <= path.length(); i++) {
            if (i == path.length() || path.charAt(i) == '/') {
                if (i > start) {
                    segments.add(path.substring(start, i));
                }
                start = i + 1;
            }
        }
        return segments;
    }
}
