package io.kdra.apiserver.http;

import io.kdra.apiserver.api.KindRegistry;
import io.kdra.apiserver.api.ResourceType;
import io.kdra.apiserver.json.Json;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/** The discovery documents: {@code /api}, {@code /apis}, {@code /apis/<group>} and the per-version resource lists. */
final class Discovery {

    private static final List<String> VERBS =
            List.of("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch");
    private static final Map<String, List<String>> SUBRESOURCE_VERBS = Map.of(
            "status", List.of("get", "patch", "update"),
            "scale", List.of("get", "patch", "update"),
            "binding", List.of("create"),
            "eviction", List.of("create"),
            "finalize", List.of("update"));

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
        return groups;
    }

    /** @return the group's served versions, preferred first */
    List<String> versions(String group) {
        Map<String, Integer> rank = new LinkedHashMap<>();
        for (ResourceType type : kinds.types()) {
            if (type.group().equals(group)) {
                for (int i = 0; i < type.versions().size(); i++) {
                    rank.merge(type.versions().get(i), i, Math::min);
                }
            }
        }
        List<String> versions = new ArrayList<>(rank.keySet());
        versions.sort((a, b) -> Integer.compare(rank.get(a), rank.get(b)));
        return versions;
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
            VERBS.forEach(verbs::add);
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
