package io.kdra.apiserver.lifecycle;

import io.kdra.apiserver.api.ResourceType;
import io.kdra.apiserver.json.Json;
import io.kdra.apiserver.registry.DeleteOptions;
import io.kdra.apiserver.registry.Meta;
import io.kdra.apiserver.storage.WatchEvent;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Owner-reference garbage collection: dependents of a deleted owner are deleted (background), or deleted first
 * while the owner waits ({@code foregroundDeletion} finalizer), or released ({@code orphan} finalizer: their owner
 * reference is removed). A dependent none of whose owners exists is deleted, as kube-controller-manager does.
 */
final class GarbageCollector implements Controller {

    private record Ref(ResourceType type, String namespace, String name, String uid) {}

    private final SystemWriter writer;
    private final Function<String, ResourceType> types;
    private final Map<String, Ref> alive = new HashMap<>();
    private final Map<String, Set<Ref>> dependents = new HashMap<>();
    private final Map<String, List<String>> ownersOf = new HashMap<>();

    GarbageCollector(SystemWriter writer, Function<String, ResourceType> types) {
        this.writer = writer;
        this.types = types;
    }

    @Override
    public void handle(WatchEvent event) {
        ResourceType type = types.apply(event.storageKey());
        ObjectNode object = event.object();
        Ref ref = new Ref(type, Meta.namespace(object), Meta.name(object), Meta.uid(object));
        if (event.type() == WatchEvent.Type.DELETED) {
            alive.remove(ref.uid());
            List<String> owners = index(ref, List.of());
            collectDependents(ref.uid());
            owners.forEach(this::finishForegroundDeletion);
            return;
        }
        alive.put(ref.uid(), ref);
        List<String> owners = ownerUids(object);
        index(ref, owners);
        if (Meta.isDeleting(object)) {
            List<String> finalizers = Meta.finalizers(object);
            if (finalizers.contains(Meta.ORPHAN_FINALIZER)) {
                for (Ref dependent : dependentsOf(ref.uid())) {
                    removeOwnerReference(dependent, ref.uid());
                }
                removeFinalizer(ref, Meta.ORPHAN_FINALIZER);
            }
            if (finalizers.contains(Meta.FOREGROUND_FINALIZER)) {
                for (Ref dependent : dependentsOf(ref.uid())) {
                    writer.delete(dependent.type(), dependent.namespace(), dependent.name(), dependent.uid(),
                            DeleteOptions.FOREGROUND);
                }
                finishForegroundDeletion(ref.uid());
            }
        } else if (!owners.isEmpty() && owners.stream().noneMatch(alive::containsKey)) {
            writer.delete(type, ref.namespace(), ref.name(), ref.uid(), DeleteOptions.BACKGROUND);
        }
    }

    private void collectDependents(String ownerUid) {
        for (Ref dependent : dependentsOf(ownerUid)) {
            boolean otherOwnerAlive = ownersOf.getOrDefault(dependent.uid(), List.of()).stream()
                    .anyMatch(uid -> !uid.equals(ownerUid) && alive.containsKey(uid));
            if (otherOwnerAlive) {
                removeOwnerReference(dependent, ownerUid);
            } else {
                writer.delete(dependent.type(), dependent.namespace(), dependent.name(), dependent.uid(),
                        DeleteOptions.BACKGROUND);
            }
        }
    }

    private void finishForegroundDeletion(String ownerUid) {
        Ref owner = alive.get(ownerUid);
        if (owner != null && dependentsOf(ownerUid).isEmpty()) {
            writer.patch(owner.type(), owner.namespace(), owner.name(), false, object -> {
                if (Meta.isDeleting(object) && ownerUid.equals(Meta.uid(object))) {
                    List<String> finalizers = new ArrayList<>(Meta.finalizers(object));
                    finalizers.remove(Meta.FOREGROUND_FINALIZER);
                    Meta.setFinalizers(object, finalizers);
                }
                return object;
            });
        }
    }

    private void removeFinalizer(Ref ref, String finalizer) {
        writer.patch(ref.type(), ref.namespace(), ref.name(), false, object -> {
            if (ref.uid().equals(Meta.uid(object))) {
                List<String> finalizers = new ArrayList<>(Meta.finalizers(object));
                finalizers.remove(finalizer);
                Meta.setFinalizers(object, finalizers);
            }
            return object;
        });
    }

    private void removeOwnerReference(Ref dependent, String ownerUid) {
        writer.patch(dependent.type(), dependent.namespace(), dependent.name(), false, object -> {
            JsonNode references = Json.at(object, "metadata", "ownerReferences");
            if (references instanceof ArrayNode list) {
                for (int i = list.size() - 1; i >= 0; i--) {
                    if (ownerUid.equals(Json.text(list.get(i), "uid"))) {
                        list.remove(i);
                    }
                }
                if (list.isEmpty()) {
                    Json.metadata(object).remove("ownerReferences");
                }
            }
            return object;
        });
    }

    /** Records the object's owners and returns the ones it had before. */
    private List<String> index(Ref ref, List<String> owners) {
        List<String> previous = owners.isEmpty() ? ownersOf.remove(ref.uid()) : ownersOf.put(ref.uid(), owners);
        if (previous != null) {
            for (String owner : previous) {
                Set<Ref> set = dependents.get(owner);
                if (set != null) {
                    set.removeIf(r -> r.uid().equals(ref.uid()));
                    if (set.isEmpty()) {
                        dependents.remove(owner);
                    }
                }
            }
        }
        for (String owner : owners) {
            dependents.computeIfAbsent(owner, k -> new LinkedHashSet<>()).add(ref);
        }
        return previous == null ? List.of() : previous;
    }

    private List<Ref> dependentsOf(String ownerUid) {
        return new ArrayList<>(dependents.getOrDefault(ownerUid, Set.of()));
    }

    private static List<String> ownerUids(ObjectNode object) {
        Set<String> uids = new HashSet<>();
        for (JsonNode reference : Json.at(object, "metadata", "ownerReferences")) {
            String uid = Json.text(reference, "uid");
            if (uid != null) {
                uids.add(uid);
            }
        }
        return new ArrayList<>(uids);
    }
}
