package io.kdra.apiserver.resource;

import java.util.List;
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

    /** ObjectMeta's other fields, in Go's field order. */
    private static final List<String> OTHER_FIELDS = List.of("name", "generateName", "namespace", "selfLink", "uid",
            "resourceVersion", "generation", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds",
            "ownerReferences", "finalizers", "managedFields");

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
        for (String name : OTHER_FIELDS) {
            if (!JsonNodes.isZero(JsonNodes.get(metadata, name))) {
                // Upstream names the Go field with a lower-case first letter: UID becomes "uID".
                run.add(FieldErrors.forbidden(path.child(name.equals("uid") ? "uID" : name), "cannot be set"));
            }
        }
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
