package io.kdra.apiserver.patch;

import io.kdra.apiserver.api.ApiException;
import io.kdra.apiserver.json.Json;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Server-side apply: merges an applied configuration into the live object and records the applier as owner of the
 * fields it set. A field another manager owns with a different value is a conflict (409) unless forced, which takes
 * the field over. Fields the applier set before but no longer sets are removed when no one else owns them.
 */
public final class ServerSideApply {

    private ServerSideApply() {}

    /**
     * @param live the current object, or null when the apply creates it
     * @param config the applied configuration, in the same version as {@code live}
     * @return the object after the apply, with managedFields updated
     */
    public static ObjectNode apply(ObjectNode live, ObjectNode config, String manager, boolean force, String time) {
        FieldSet applied = FieldSet.leavesOf(config);
        String apiVersion = Json.text(config, "apiVersion");
        if (live == null) {
            ObjectNode created = config.deepCopy();
            Json.metadata(created).remove("managedFields");
            ManagedFields.write(created, List.of(new ManagedFields.Entry(manager, ManagedFields.APPLY,
                    apiVersion, time, applied)));
            return created;
        }
        List<ManagedFields.Entry> entries = ManagedFields.read(live);
        FieldSet previouslyApplied = FieldSet.empty();
        FieldSet ownedByOthers = FieldSet.empty();
        List<Conflict> conflicts = new ArrayList<>();
        java.util.Set<String> conflicting = new java.util.HashSet<>();
        for (ManagedFields.Entry entry : entries) {
            if (entry.manager().equals(manager) && entry.operation().equals(ManagedFields.APPLY)) {
                previouslyApplied = entry.fields();
                continue;
            }
            ownedByOthers = ownedByOthers.union(entry.fields());
            for (String path : applied.intersect(entry.fields()).paths()) {
                // co-owning a list item is no conflict: only its fields can have different values
                if (!FieldSet.isListItem(path)
                        && !FieldSet.valueAt(config, path).equals(FieldSet.valueAt(live, path))) {
                    conflicts.add(new Conflict(entry.manager(), entry.apiVersion(), path));
                    conflicting.add(path);
                }
            }
        }
        if (!conflicts.isEmpty() && !force) {
            // what kubectl applied client-side before is its own, so it takes it without being forced
            java.util.Set<String> ownedThroughClientSideApply = manager.equals(LastApplied.KUBECTL)
                    ? LastApplied.ownedThroughClientSideApply(live, apiVersion).paths() : java.util.Set.of();
            List<Conflict> remaining = conflicts.stream()
                    .filter(conflict -> !ownedThroughClientSideApply.contains(conflict.path())).toList();
            if (!remaining.isEmpty()) {
                throw conflict(remaining);
            }
        }
        ObjectNode result = live.deepCopy();
        merge(result, config);
        for (String path : previouslyApplied.minus(applied).minus(ownedByOthers).paths()) {
            remove(result, FieldSet.split(path));
        }
        List<ManagedFields.Entry> updated = new ArrayList<>();
        boolean placed = false;
        for (ManagedFields.Entry entry : entries) {
            if (entry.manager().equals(manager) && entry.operation().equals(ManagedFields.APPLY)) {
                updated.add(new ManagedFields.Entry(manager, ManagedFields.APPLY, apiVersion, time, applied));
                placed = true;
                continue;
            }
            FieldSet remaining = entry.fields().withoutPaths(conflicting);
            if (!remaining.isEmpty()) {
                updated.add(new ManagedFields.Entry(entry.manager(), entry.operation(), entry.apiVersion(),
                        entry.time(), remaining));
            }
        }
        if (!placed) {
            updated.add(new ManagedFields.Entry(manager, ManagedFields.APPLY, apiVersion, time, applied));
        }
        ManagedFields.write(result, updated);
        if (manager.equals(LastApplied.KUBECTL)) {
            LastApplied.syncAnnotation(result, config);
        }
        return result;
    }

    /** A field the applier sets to another value than the one a manager owns. */
    private record Conflict(String manager, String apiVersion, String path) {}

    private static ApiException conflict(List<Conflict> found) {
        Map<String, List<String>> conflicts = new LinkedHashMap<>();
        for (Conflict conflict : found) {
            conflicts.computeIfAbsent(conflict.manager() + "\u0000" + conflict.apiVersion(), k -> new ArrayList<>())
                    .add(FieldSet.describe(conflict.path()));
        }
        int count = conflicts.values().stream().mapToInt(List::size).sum();
        ObjectNode details = Json.object();
        ArrayNode causes = details.putArray("causes");
        StringBuilder message = new StringBuilder("Apply failed with ").append(count)
                .append(count == 1 ? " conflict: " : " conflicts: ");
        boolean single = count == 1;
        for (Map.Entry<String, List<String>> entry : conflicts.entrySet()) {
            String[] owner = entry.getKey().split("\u0000", 2);
            String with = String.format("conflict with \"%s\" using %s", owner[0], owner[1]);
            if (single) {
                message.append(with).append(": ").append(entry.getValue().get(0));
            } else {
                message.append("\n").append(with.replace("conflict with", "conflicts with")).append(":");
                entry.getValue().forEach(field -> message.append("\n- ").append(field));
            }
            for (String field : entry.getValue()) {
                ObjectNode cause = causes.addObject();
                cause.put("reason", "FieldManagerConflict");
                cause.put("message", with);
                cause.put("field", field);
            }
        }
        return ApiException.of(409, "Conflict", message.toString(), details);
    }

    /** Merges the configuration into the target as apply does: keyed lists by key, set lists as sets. */
    private static void merge(ObjectNode target, ObjectNode config) {
        for (Map.Entry<String, JsonNode> entry : config.properties()) {
            String field = entry.getKey();
            JsonNode value = entry.getValue();
            JsonNode existing = target.get(field);
            if (field.equals("managedFields")) {
                continue;
            }
            if (value.isObject() && existing instanceof ObjectNode existingObject && !value.isEmpty()) {
                merge(existingObject, (ObjectNode) value);
            } else if (value.isArray() && existing instanceof ArrayNode existingList
                    && MergeKeys.keyOf(field) != null) {
                mergeKeyedList(existingList, (ArrayNode) value, MergeKeys.keyOf(field));
            } else if (value.isArray() && existing instanceof ArrayNode existingList && MergeKeys.isSet(field)) {
                for (JsonNode item : value) {
                    if (!existingList.valueStream().anyMatch(item::equals)) {
                        existingList.add(item.deepCopy());
                    }
                }
            } else {
                target.set(field, value.deepCopy());
            }
        }
    }

    private static void mergeKeyedList(ArrayNode target, ArrayNode config, String key) {
        for (JsonNode item : config) {
            JsonNode match = null;
            for (JsonNode existing : target) {
                if (item.get(key) != null && item.get(key).equals(existing.get(key))) {
                    match = existing;
                }
            }
            if (match instanceof ObjectNode matched && item.isObject()) {
                merge(matched, (ObjectNode) item);
            } else {
                target.add(item.deepCopy());
            }
        }
    }

    private static void remove(JsonNode node, List<String> path) {
        JsonNode parent = node;
        for (int i = 0; i < path.size() - 1; i++) {
            String element = path.get(i);
            parent = element.startsWith("k:") ? FieldSet.findItem(parent, element) : parent.path(element.substring(2));
            if (parent.isMissingNode()) {
                return;
            }
        }
        String last = path.get(path.size() - 1);
        if (last.startsWith("f:") && parent instanceof ObjectNode object) {
            object.remove(last.substring(2));
        } else if (last.startsWith("v:") && parent instanceof ArrayNode list) {
            JsonNode value = Json.parse(last.substring(2).getBytes(java.nio.charset.StandardCharsets.UTF_8));
            for (int i = list.size() - 1; i >= 0; i--) {
                if (list.get(i).equals(value)) {
                    list.remove(i);
                }
            }
        } else if (last.equals(".") && path.size() >= 2) {
            removeItem(node, path.subList(0, path.size() - 1));
        }
    }

    private static void removeItem(JsonNode root, List<String> itemPath) {
        JsonNode list = root;
        for (String element : itemPath.subList(0, itemPath.size() - 1)) {
            list = element.startsWith("k:") ? FieldSet.findItem(list, element) : list.path(element.substring(2));
        }
        JsonNode item = FieldSet.findItem(list, itemPath.get(itemPath.size() - 1));
        if (list instanceof ArrayNode array) {
            for (int i = array.size() - 1; i >= 0; i--) {
                if (array.get(i) == item) {
                    array.remove(i);
                }
            }
        }
    }
}
