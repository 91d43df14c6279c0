package io.kdra.apiserver.resource;

import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** Core {@code ValidateNodeSelector} (label values checked), as used for slices, devices and allocations. */
final class NodeSelectorChecks {

    private NodeSelectorChecks() {
    }

    static void nodeSelector(ValidationRun run, ObjectNode selector, FieldPath path) {
        FieldPath termsPath = path.child("nodeSelectorTerms");
        List<JsonNode> terms = run.items(selector, "nodeSelectorTerms", path);
        if (terms.isEmpty()) {
            run.add(FieldErrors.required(termsPath, "must have at least one node selector term"));
            return;
        }
        for (int i = 0; i < terms.size(); i++) {
            FieldPath termPath = termsPath.index(i);
            ObjectNode term = run.struct(terms.get(i), termPath);
            List<JsonNode> expressions = run.items(term, "matchExpressions", termPath);
            for (int j = 0; j < expressions.size(); j++) {
                FieldPath requirementPath = termPath.child("matchExpressions").index(j);
                labelRequirement(run, run.struct(expressions.get(j), requirementPath), requirementPath);
            }
            List<JsonNode> fields = run.items(term, "matchFields", termPath);
            for (int j = 0; j < fields.size(); j++) {
                FieldPath requirementPath = termPath.child("matchFields").index(j);
                fieldRequirement(run, run.struct(fields.get(j), requirementPath), requirementPath);
            }
        }
    }

    private static void labelRequirement(ValidationRun run, ObjectNode requirement, FieldPath path) {
        String operator = run.string(requirement, "operator", path);
        List<String> values = run.strings(requirement, "values", path);
        FieldPath valuesPath = path.child("values");
        switch (operator) {
            case "In", "NotIn" -> {
                if (values.isEmpty()) {
                    run.add(FieldErrors.required(valuesPath, "must be specified when `operator` is 'In' or 'NotIn'"));
                }
            }
            case "Exists", "DoesNotExist" -> {
                if (!values.isEmpty()) {
                    run.add(FieldErrors.forbidden(valuesPath,
                            "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
                }
            }
            case "Gt", "Lt" -> {
                if (values.size() != 1) {
                    run.add(FieldErrors.required(valuesPath,
                            "must be specified single value when `operator` is 'Lt' or 'Gt'"));
                }
            }
            default -> run.add(FieldErrors.invalid(path.child("operator"), operator, "not a valid selector operator"));
        }
        FieldChecks.labelName(run, run.string(requirement, "key", path), path.child("key"));
        for (int i = 0; i < values.size(); i++) {
            FieldChecks.labelValue(run, values.get(i), valuesPath.index(i));
        }
    }

    private static void fieldRequirement(ValidationRun run, ObjectNode requirement, FieldPath path) {
        String operator = run.string(requirement, "operator", path);
        List<String> values = run.strings(requirement, "values", path);
        if (operator.equals("In") || operator.equals("NotIn")) {
            if (values.size() != 1) {
                run.add(FieldErrors.required(path.child("values"),
                        "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"));
            }
        } else {
            run.add(FieldErrors.invalid(path.child("operator"), operator, "not a valid selector operator"));
        }
        String key = run.string(requirement, "key", path);
        if (!key.equals("metadata.name")) {
            run.add(FieldErrors.invalid(path.child("key"), key, "not a valid field selector key"));
            return;
        }
        for (int i = 0; i < values.size(); i++) {
            FieldChecks.nodeName(run, values.get(i), path.child("values").index(i));
        }
    }
}
