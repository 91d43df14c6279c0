package io.kdra.apiserver.resource;

import java.util.List;
import java.util.Objects;
import tools.jackson.databind.node.ObjectNode;

/** Device taints (in slices and DeviceTaintRules) and the tolerations of requests and allocation results. */
final class TaintChecks {

    /** {@code DeviceTaintsMaxLength}: taints per device. */
    static final int DEVICE_TAINTS_MAX = 16;
    /** {@code DeviceTolerationsMaxLength}: tolerations per request. */
    static final int DEVICE_TOLERATIONS_MAX = 16;
    /** The valid effects, sorted as upstream lists them in messages. */
    static final List<String> EFFECTS = List.of("NoExecute", "NoSchedule", "None");
    private static final List<String> OPERATORS = List.of("Equal", "Exists");

    private TaintChecks() {
    }

    /**
     * @param oldTaint the stored taint on update, or null; an unchanged effect is not checked again so that effects
     *                 added in later releases stay valid in stored objects
     */
    static void taint(ValidationRun run, ObjectNode taint, ObjectNode oldTaint, FieldPath path) {
        FieldChecks.labelName(run, run.string(taint, "key", path), path.child("key"));
        String value = run.string(taint, "value", path);
        if (!value.isEmpty()) {
            FieldChecks.labelValue(run, value, path.child("value"));
        }
        String effect = run.string(taint, "effect", path);
        if (oldTaint != null && Objects.equals(oldTaint.path("effect").asString(""), effect)) {
            return;
        }
        if (effect.isEmpty()) {
            run.add(FieldErrors.required(path.child("effect"), ""));
        } else if (!EFFECTS.contains(effect)) {
            run.add(FieldErrors.notSupported(path.child("effect"), effect, EFFECTS));
        }
    }

    static void toleration(ValidationRun run, ObjectNode toleration, FieldPath path) {
        String key = run.string(toleration, "key", path);
        if (!key.isEmpty()) {
            FieldChecks.labelName(run, key, path.child("key"));
        }
        String operator = run.string(toleration, "operator", path);
        String value = run.string(toleration, "value", path);
        switch (operator) {
            case "Exists" -> {
                if (!value.isEmpty()) {
                    run.add(FieldErrors.invalid(path.child("value"), value, "must be empty for operator `Exists`"));
                }
            }
            case "Equal" -> FieldChecks.labelValue(run, value, path.child("value"));
            case "" -> run.add(FieldErrors.required(path.child("operator"), ""));
            default -> run.add(FieldErrors.notSupported(path.child("operator"), operator, OPERATORS));
        }
        String effect = run.string(toleration, "effect", path);
        if (!effect.isEmpty() && !EFFECTS.contains(effect)) {
            run.add(FieldErrors.notSupported(path.child("effect"), effect, EFFECTS));
        }
        run.int64(toleration, "tolerationSeconds", path);
    }

    static void tolerations(ValidationRun run, ObjectNode parent, FieldPath parentPath) {
        FieldPath path = parentPath.child("tolerations");
        CollectionChecks.list(run, run.items(parent, "tolerations", parentPath), DEVICE_TOLERATIONS_MAX, path,
                (item, itemPath) -> toleration(run, run.struct(item, itemPath), itemPath));
    }
}
