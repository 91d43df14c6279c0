package io.kdra.apiserver.http;

import io.kdra.apiserver.api.KindRegistry;
import io.kdra.apiserver.api.ResourceType;
import io.kdra.apiserver.auth.AccessReviews;
import io.kdra.apiserver.json.Json;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/** The discovery documents: {@code /api}, {@code /apis}, {@code /apis/<group>} and the per-version resource lists. */
final class Discovery {

    private static final Map<String, List<String>> SUBRESOURCE_VERBS = Map.of(
            "status", List.of("get", "patch", "update"),
            "scale", List.of("get", "patch", "update"),
            "binding", List.of("create"),
            "eviction", List.of("create"),
            "finalize", List.of("update"),
            "log", List.of("get"),
            "exec", List.of("create", "get"),
            "portforward", List.of("create", "get"),
            "resize", List.of("get", "patch", "update"));

    private static final Pattern KUBE_VERSION = Pattern.compile("v(\\d+)(?:(alpha|beta)(\\d+))?");

    private final KindRegistry kinds;

    Discovery(KindRegistry kinds) {
        this.kinds = kinds;
    }

    /** @return the document at the path, or null when the path is not a discovery path */
    ObjectNode document(String path, String serverAddress) {
        String trimmed = path.replaceAll("/+$", "");
        if (trimmed.equals("/api")) {
            ObjectNode versions = Json.object();
            versions.put("kind", "APIVersions");
            versions.putArray("versions").add("v1");
            ObjectNode address = versions.putArray("serverAddressByClientCIDRs").addObject();
            address.put("clientCIDR", "0.0.0.0/0");
            address.put("serverAddress", serverAddress);
            return versions;
        }
        if (trimmed.equals("/apis")) {
            ObjectNode list = Json.object();
            list.put("kind", "APIGroupList");
            list.put("apiVersion", "v1");
            ArrayNode groups = list.putArray("groups");
            for (String group : groups()) {
                groups.add(group(group));
            }
            return list;
        }
        if (trimmed.equals("/api/v1")) {
            return resourceList("", "v1");
        }
        String[] parts = trimmed.split("/");
        if (parts.length == 3 && parts[1].equals("apis") && groups().contains(parts[2])) {
            ObjectNode group = group(parts[2]);
            group.put("kind", "APIGroup");
            group.put("apiVersion", "v1");
            return group;
        }
        if (parts.length == 4 && parts[1].equals("apis") && versions(parts[2]).contains(parts[3])) {
            return resourceList(parts[2], parts[3]);
        }
        return null;
    }

    Set<String> groups() {
        Set<String> groups = new LinkedHashSet<>();
        for (ResourceType type : kinds.types()) {
            if (!type.group().isEmpty()) {
                groups.add(type.group());
            }
        }
        AccessReviews.RESOURCES.forEach(review -> groups.add(review.group()));
        return groups;
    }

    /** @return the group's served versions, preferred first in Kubernetes' version priority (v1, v1beta2, ...) */
    List<String> versions(String group) {
        Set<String> served = new LinkedHashSet<>();
        for (ResourceType type : kinds.types()) {
            if (type.group().equals(group)) {
                served.addAll(type.versions());
            }
        }
        AccessReviews.RESOURCES.stream().filter(review -> review.group().equals(group))
                .forEach(review -> served.add(review.version()));
        List<String> versions = new ArrayList<>(served);
        versions.sort(Discovery::byPriority);
        return versions;
    }

    /**
     * Kubernetes' version priority: GA before beta before alpha, a higher major version first, then a higher
     * pre-release number; anything else last, alphabetically.
     */
    static int byPriority(String a, String b) {
        Matcher first = KUBE_VERSION.matcher(a);
        Matcher second = KUBE_VERSION.matcher(b);
        boolean firstMatches = first.matches();
        boolean secondMatches = second.matches();
        if (!firstMatches || !secondMatches) {
            return firstMatches ? -1 : secondMatches ? 1 : a.compareTo(b);
        }
        int byStability = Integer.compare(stability(second.group(2)), stability(first.group(2)));
        if (byStability != 0) {
            return byStability;
        }
        int byMajor = Integer.compare(Integer.parseInt(second.group(1)), Integer.parseInt(first.group(1)));
        if (byMajor != 0) {
            return byMajor;
        }
        return Integer.compare(minor(second.group(3)), minor(first.group(3)));
    }

    private static int stability(String level) {
        return level == null ? 2 : level.equals("beta") ? 1 : 0;
    }

    private static int minor(String number) {
        return number == null ? 0 : Integer.parseInt(number);
    }

    private ObjectNode group(String name) {
        ObjectNode group = Json.object();
        group.put("name", name);
        ArrayNode versions = group.putArray("versions");
        List<String> served = versions(name);
        for (String version : served) {
            ObjectNode entry = versions.addObject();
            entry.put("groupVersion", name + "/" + version);
            entry.put("version", version);
        }
        ObjectNode preferred = group.putObject("preferredVersion");
        preferred.put("groupVersion", name + "/" + served.get(0));
        preferred.put("version", served.get(0));
        return group;
    }

    private ObjectNode resourceList(String group, String version) {
        ObjectNode list = Json.object();
        list.put("kind", "APIResourceList");
        list.put("apiVersion", "v1");
        list.put("groupVersion", group.isEmpty() ? version : group + "/" + version);
        ArrayNode resources = list.putArray("resources");
        for (ResourceType type : kinds.types()) {
            if (!type.group().equals(group) || !type.serves(version)) {
                continue;
            }
            ObjectNode resource = resources.addObject();
            resource.put("name", type.plural());
            resource.put("singularName", type.singular());
            resource.put("namespaced", type.namespaced());
            resource.put("kind", type.kind());
            ArrayNode verbs = resource.putArray("verbs");
            type.verbs().forEach(verbs::add);
            if (!type.shortNames().isEmpty()) {
                ArrayNode shortNames = resource.putArray("shortNames");
                type.shortNames().forEach(shortNames::add);
            }
            if (!type.categories().isEmpty()) {
                ArrayNode categories = resource.putArray("categories");
                type.categories().forEach(categories::add);
            }
            for (String subresource : type.subresources().stream().sorted().toList()) {
                resources.add(subresource(type, subresource));
            }
        }
        for (AccessReviews.Resource review : AccessReviews.RESOURCES) {
            if (review.group().equals(group) && review.version().equals(version)) {
                ObjectNode resource = resources.addObject();
                resource.put("name", review.plural());
                resource.put("singularName", review.kind().toLowerCase(java.util.Locale.ROOT));
                resource.put("namespaced", false);
                resource.put("kind", review.kind());
                resource.putArray("verbs").add("create");
            }
        }
        return list;
    }

    private static ObjectNode subresource(ResourceType type, String subresource) {
        ObjectNode resource = Json.object();
        resource.put("name", type.plural() + "/" + subresource);
        resource.put("singularName", "");
        resource.put("namespaced", type.namespaced());
        switch (subresource) {
            case "scale" -> {
                resource.put("group", "autoscaling");
                resource.put("version", "v1");
                resource.put("kind", "Scale");
            }
            case "binding" -> resource.put("kind", "Binding");
            case "exec" -> resource.put("kind", "PodExecOptions");
            case "portforward" -> resource.put("kind", "PodPortForwardOptions");
            case "eviction" -> {
                resource.put("group", "policy");
                resource.put("version", "v1");
                resource.put("kind", "Eviction");
            }
            default -> resource.put("kind", type.kind());
        }
        ArrayNode verbs = resource.putArray("verbs");
        SUBRESOURCE_VERBS.get(subresource).forEach(verbs::add);
        return resource;
    }
}
