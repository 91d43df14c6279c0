package io.kdra.apiserver.resource;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Core {@code ValidateTemplateObjectMeta}: the metadata in a ResourceClaimTemplate's spec may carry labels and
 * annotations only.
 */
final class TemplateMetadataChecks {

    /** {@code TotalAnnotationSizeLimitB}. */
    static final int ANNOTATIONS_MAX_TOTAL_SIZE = 256 * 1024;

    /**
     * ObjectMeta's JSON names and the names upstream reports (the Go field name with a lower-case first letter), in
     * Go's field order.
     */
    private static final Map<String, String> OTHER_FIELDS = new LinkedHashMap<>();

    static {
        OTHER_FIELDS.put("name", "name");
        OTHER_FIELDS.put("generateName", "generateName");
        OTHER_FIELDS.put("namespace", "namespace");
        OTHER_FIELDS.put("selfLink", "selfLink");
        OTHER_FIELDS.put("uid", "uID");
        OTHER_FIELDS.put("resourceVersion", "resourceVersion");
        OTHER_FIELDS.put("generation", "generation");
        OTHER_FIELDS.put("creationTimestamp", "creationTimestamp");
        OTHER_FIELDS.put("deletionTimestamp", "deletionTimestamp");
        OTHER_FIELDS.put("deletionGracePeriodSeconds", "deletionGracePeriodSeconds");
        OTHER_FIELDS.put("ownerReferences", "ownerReferences");
        OTHER_FIELDS.put("finalizers", "finalizers");
        OTHER_FIELDS.put("managedFields", "managedFields");
    }

    private TemplateMetadataChecks() {
    }

    static void templateMetadata(ValidationRun run, ObjectNode metadata, FieldPath path) {
        ObjectNode annotations = run.object(metadata, "annotations", path);
        if (annotations != null) {
            annotations(run, annotations, path.child("annotations"));
        }
        ObjectNode labels = run.object(metadata, "labels", path);
        if (labels != null) {
            labels(run, labels, path.child("labels"));
        }
        OTHER_FIELDS.forEach((jsonName, reportedName) -> {
            if (!JsonNodes.isZero(JsonNodes.get(metadata, jsonName))) {
                run.add(FieldErrors.forbidden(path.child(reportedName), "cannot be set"));
            }
        });
    }

    private static void annotations(ValidationRun run, ObjectNode annotations, FieldPath path) {
        long totalSize = 0;
        for (Map.Entry<String, JsonNode> entry : annotations.properties()) {
            String key = entry.getKey();
            NameFormats.qualifiedName(key.toLowerCase(Locale.ROOT))
                    .forEach(message -> run.add(FieldErrors.invalid(path, key, message)));
            totalSize += GoStrings.byteLength(key) + GoStrings.byteLength(stringValue(run, entry, path));
        }
        if (totalSize > ANNOTATIONS_MAX_TOTAL_SIZE) {
            run.add(FieldErrors.tooLong(path, ANNOTATIONS_MAX_TOTAL_SIZE));
        }
    }

    private static void labels(ValidationRun run, ObjectNode labels, FieldPath path) {
        for (Map.Entry<String, JsonNode> entry : labels.properties()) {
            FieldChecks.labelName(run, entry.getKey(), path);
            FieldChecks.labelValue(run, stringValue(run, entry, path), path);
        }
    }

    private static String stringValue(ValidationRun run, Map.Entry<String, JsonNode> entry, FieldPath mapPath) {
        if (entry.getValue().isString()) {
            return entry.getValue().stringValue();
        }
        run.add(FieldErrors.typeInvalid(mapPath.key(entry.getKey()), entry.getValue(), "must be of type string"));
        return "";
    }
}
