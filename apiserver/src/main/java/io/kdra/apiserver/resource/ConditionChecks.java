package io.kdra.apiserver.resource;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** {@code metav1validation.ValidateConditions} for {@code metav1.Condition} lists. */
final class ConditionChecks {

    private static final int MAX_REASON_LENGTH = 1024;
    private static final int MAX_MESSAGE_LENGTH = 32 * 1024;
    private static final String REASON_FORMAT = "[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?";
    private static final Pattern REASON = Pattern.compile(REASON_FORMAT);
    private static final String REASON_MESSAGE = "a condition reason must start with alphabetic character, optionally "
            + "followed by a string of alphanumeric characters or '_,:', and must end with an alphanumeric character "
            + "or '_'";
    /** Sorted, as {@code sets.String.List()} returns them. */
    private static final List<String> STATUSES = List.of("False", "True", "Unknown");

    private ConditionChecks() {
    }

    static void conditions(ValidationRun run, List<JsonNode> conditions, FieldPath path) {
        Set<String> types = new HashSet<>();
        for (int i = 0; i < conditions.size(); i++) {
            FieldPath conditionPath = path.index(i);
            ObjectNode condition = run.struct(conditions.get(i), conditionPath);
            String type = run.string(condition, "type", conditionPath);
            if (!types.add(type)) {
                run.add(FieldErrors.duplicate(conditionPath.child("type"), type));
            }
            condition(run, condition, type, conditionPath);
        }
    }

    private static void condition(ValidationRun run, ObjectNode condition, String type, FieldPath path) {
        FieldChecks.labelName(run, type, path.child("type"));
        String status = run.string(condition, "status", path);
        if (!STATUSES.contains(status)) {
            run.add(FieldErrors.notSupported(path.child("status"), status, STATUSES));
        }
        long observedGeneration = run.int64(condition, "observedGeneration", path);
        if (observedGeneration < 0) {
            run.add(FieldErrors.invalid(path.child("observedGeneration"), observedGeneration,
                    "must be greater than or equal to zero"));
        }
        if (run.string(condition, "lastTransitionTime", path).isEmpty()) {
            run.add(FieldErrors.required(path.child("lastTransitionTime"), "must be set"));
        }
        String reason = run.string(condition, "reason", path);
        if (reason.isEmpty()) {
            run.add(FieldErrors.required(path.child("reason"), "must be set"));
        } else {
            if (!REASON.matcher(reason).matches()) {
                run.add(FieldErrors.invalid(path.child("reason"), reason, NameFormats.regexError(REASON_MESSAGE,
                        REASON_FORMAT, "my_name", "MY_NAME", "MyName", "ReasonA,ReasonB", "ReasonA:ReasonB")));
            }
            if (GoStrings.byteLength(reason) > MAX_REASON_LENGTH) {
                run.add(FieldErrors.tooLong(path.child("reason"), MAX_REASON_LENGTH));
            }
        }
        if (GoStrings.byteLength(run.string(condition, "message", path)) > MAX_MESSAGE_LENGTH) {
            run.add(FieldErrors.tooLong(path.child("message"), MAX_MESSAGE_LENGTH));
        }
    }
}
