package io.kdra.apiserver.registry;

import io.kdra.apiserver.json.Json;
import io.kdra.apiserver.patch.FieldSet;
import io.kdra.apiserver.patch.ManagedFields;
import java.time.Clock;
import java.util.List;
import tools.jackson.databind.node.ObjectNode;

/** Records in managedFields which manager changed which fields, for every write that is not a server-side apply. */
final class ManagedFieldsTracker {

    private final Clock clock;

    ManagedFieldsTracker(Clock clock) {
        this.clock = clock;
    }

    /** @param current the object before the write, or null on create */
    void recordUpdate(ObjectNode next, ObjectNode current, String manager) {
        if (manager == null || manager.isEmpty()) {
            return;
        }
        FieldSet changed = current == null ? FieldSet.leavesOf(next) : FieldSet.changed(current, next);
        if (changed.isEmpty()) {
            return;
        }
        FieldSet present = FieldSet.leavesOf(next);
        List<ManagedFields.Entry> entries = ManagedFields.read(next);
        FieldSet owned = FieldSet.empty();
        for (ManagedFields.Entry entry : entries) {
            if (entry.manager().equals(manager) && entry.operation().equals(ManagedFields.UPDATE)) {
                owned = entry.fields();
            }
        }
        FieldSet own = owned.union(changed).intersect(present);
        String apiVersion = Json.text(next, "apiVersion");
        List<ManagedFields.Entry> updated = ManagedFields.assign(entries, manager, ManagedFields.UPDATE,
                apiVersion == null ? "" : apiVersion, Meta.timestamp(clock.instant()), changed, own);
        ManagedFields.write(next, updated);
    }
}
