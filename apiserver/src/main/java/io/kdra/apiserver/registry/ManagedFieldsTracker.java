package io.kdra.apiserver.registry;

import io.kdra.apiserver.patch.FieldSet;
import io.kdra.apiserver.patch.ManagedFields;
import java.time.Clock;
import java.util.List;
import java.util.function.UnaryOperator;
import tools.jackson.databind.node.ObjectNode;

/** Records in managedFields which manager changed which fields, for every write that is not a server-side apply. */
final class ManagedFieldsTracker {

    private final Clock clock;

    ManagedFieldsTracker(Clock clock) {
        this.clock = clock;
    }

    /**
     * @param next the object after the write, in the storage version; its managedFields are updated
     * @param current the object before the write, or null on create
     * @param apiVersion the API version the writer used, e.g. {@code resource.k8s.io/v1beta1}
     * @param inWrittenVersion converts a stored object to that version, where the writer's fields are computed
     */
    void recordUpdate(ObjectNode next, ObjectNode current, String manager, String apiVersion,
            UnaryOperator<ObjectNode> inWrittenVersion) {
        if (manager == null || manager.isEmpty()) {
            return;
        }
        FieldSet.Leaves written = FieldSet.leaves(inWrittenVersion.apply(next));
        FieldSet present = written.paths();
        FieldSet changed = current == null ? present
                : written.changedSince(FieldSet.leaves(inWrittenVersion.apply(current)));
        if (changed.isEmpty()) {
            return;
        }
        List<ManagedFields.Entry> entries = ManagedFields.read(next);
        FieldSet owned = FieldSet.empty();
        for (ManagedFields.Entry entry : entries) {
            if (entry.manager().equals(manager) && entry.operation().equals(ManagedFields.UPDATE)) {
                owned = entry.fields();
            }
        }
        FieldSet own = owned.union(changed).intersect(present);
        List<ManagedFields.Entry> updated = ManagedFields.assign(entries, manager, ManagedFields.UPDATE, apiVersion,
                Meta.timestamp(clock.instant()), changed, own);
        ManagedFields.write(next, updated);
    }
}
