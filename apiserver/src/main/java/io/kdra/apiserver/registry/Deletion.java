package io.kdra.apiserver.registry;

import io.kdra.apiserver.api.ApiException;
import io.kdra.apiserver.api.ResourceType;
import io.kdra.apiserver.json.Json;
import io.kdra.apiserver.storage.Store.Change;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * When a delete removes an object at once and when it only marks it terminating: finalizers (including the
 * propagation policy's {@code orphan} and {@code foregroundDeletion}), the namespace finalizer, and the grace period
 * of scheduled pods.
 */
public final class Deletion {

    /** What a delete did: the object is gone ({@code deleted}), or it is terminating and {@code object} is its state. */
    public record Outcome(ObjectNode object, boolean deleted) {}

    private final Clock clock;

    Deletion(Clock clock) {
        this.clock = clock;
    }

    void checkPreconditions(ResourceType type, ObjectNode current, DeleteOptions options) {
        String name = Meta.name(current);
        if (options.preconditionUid() != null && !options.preconditionUid().equals(Meta.uid(current))) {
            throw ApiException.conflict(type, name, String.format(
                    "Precondition failed: UID in precondition: %s, UID in object meta: %s", options.preconditionUid(),
                    Meta.uid(current)));
        }
        if (options.preconditionResourceVersion() != null
                && !options.preconditionResourceVersion().equals(Meta.resourceVersion(current))) {
            throw ApiException.conflict(type, name, String.format(
                    "Precondition failed: ResourceVersion in precondition: %s, ResourceVersion in object meta: %s",
                    options.preconditionResourceVersion(), Meta.resourceVersion(current)));
        }
    }

    Change decide(ResourceType type, ObjectNode current, DeleteOptions options) {
        ObjectNode next = current.deepCopy();
        List<String> finalizers = new ArrayList<>(Meta.finalizers(current));
        String policy = options.propagationPolicy();
        if (DeleteOptions.ORPHAN.equals(policy)) {
            addOnce(finalizers, Meta.ORPHAN_FINALIZER);
            finalizers.remove(Meta.FOREGROUND_FINALIZER);
        } else if (DeleteOptions.FOREGROUND.equals(policy)) {
            addOnce(finalizers, Meta.FOREGROUND_FINALIZER);
            finalizers.remove(Meta.ORPHAN_FINALIZER);
        }
        Meta.setFinalizers(next, finalizers);
        long grace = gracePeriod(type, current, options);
        boolean namespaceFinalizers = isNamespace(type) && !Json.isEmpty(Json.at(current, "spec", "finalizers"));
        if (finalizers.isEmpty() && grace == 0 && !namespaceFinalizers) {
            return Change.delete(next);
        }
        ObjectNode metadata = Json.metadata(next);
        JsonNode currentGrace = metadata.get("deletionGracePeriodSeconds");
        if (!Meta.isDeleting(current) || (currentGrace != null && grace < currentGrace.asLong())) {
            metadata.put("deletionTimestamp", Meta.timestamp(clock.instant().plusSeconds(grace)));
            metadata.put("deletionGracePeriodSeconds", grace);
            if (!Meta.isDeleting(current) && KindDefaults.tracksGeneration(type)) {
                metadata.put("generation", Meta.generation(current) + 1);
            }
        }
        if (isNamespace(type)) {
            Json.ensureObject(next, "status").put("phase", "Terminating");
        }
        return next.equals(current) ? Change.none(current) : Change.put(next);
    }

    /** An update that removes the last finalizer of a terminating object deletes it, as in kube-apiserver. */
    boolean finalizedDuringUpdate(ObjectNode current, ObjectNode next) {
        if (!Meta.isDeleting(current) || Meta.finalizers(current).isEmpty() || !Meta.finalizers(next).isEmpty()) {
            return false;
        }
        return Json.at(current, "metadata", "deletionGracePeriodSeconds").asLong(0) == 0;
    }

    private static long gracePeriod(ResourceType type, ObjectNode current, DeleteOptions options) {
        if (!type.group().isEmpty() || !type.kind().equals("Pod")) {
            return 0;
        }
        String phase = Json.text(current, "status", "phase");
        if (Json.isEmpty(Json.at(current, "spec", "nodeName")) || "Succeeded".equals(phase) || "Failed".equals(phase)) {
            return 0;
        }
        if (options.gracePeriodSeconds() != null) {
            return Math.max(0, options.gracePeriodSeconds());
        }
        return Json.at(current, "spec", "terminationGracePeriodSeconds").asLong(30);
    }

    private static boolean isNamespace(ResourceType type) {
        return type.group().isEmpty() && type.kind().equals("Namespace");
    }

    private static void addOnce(List<String> list, String value) {
        if (!list.contains(value)) {
            list.add(value);
        }
    }
}
