package io.kdra.apiserver.validation;

import io.kdra.apiserver.api.FieldError;
import io.kdra.apiserver.api.ResourceType;
import io.kdra.apiserver.json.Json;
import io.kdra.kube.selection.LabelSyntax;
import io.kdra.apiserver.api.FieldError.Type;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.databind.node.StringNode;

/** Validation of {@code metadata} common to every kind: the object name, labels and annotations. */
public final class ObjectMetaValidation {

    private static final int ANNOTATIONS_MAX_BYTES = 256 * 1024;

    private ObjectMetaValidation() {}

    public static List<FieldError> validate(ResourceType type, ObjectNode object) {
        List<FieldError> errors = new ArrayList<>();
        String name = Json.text(object, "metadata", "name");
        if (name == null || name.isEmpty()) {
            errors.add(new FieldError(Type.REQUIRED, "metadata.name", null, "name or generateName is required"));
        } else {
            for (String problem : nameProblems(type, name)) {
                errors.add(new FieldError(Type.INVALID, "metadata.name", StringNode.valueOf(name), problem));
            }
        }
        validateLabels(object, errors);
        validateAnnotations(object, errors);
        return errors;
    }

    /** @return the problems of an object name of the given kind */
    public static List<String> nameProblems(ResourceType type, String name) {
        if (type.kind().equals("Namespace")) {
            return Names.dnsLabel(name);
        }
        if (type.group().equals("rbac.authorization.k8s.io")) {
            return Names.pathSegment(name);
        }
        return Names.dnsSubdomain(name);
    }

    private static void validateLabels(ObjectNode object, List<FieldError> errors) {
        for (Map.Entry<String, String> label : Json.stringMap(object, "metadata", "labels").entrySet()) {
            String keyProblem = LabelSyntax.keyProblem(label.getKey());
            if (keyProblem != null) {
                errors.add(new FieldError(Type.INVALID, "metadata.labels", StringNode.valueOf(label.getKey()), keyProblem));
            }
            String valueProblem = LabelSyntax.valueProblem(label.getValue());
            if (valueProblem != null) {
                errors.add(new FieldError(Type.INVALID, "metadata.labels", StringNode.valueOf(label.getValue()),
                        valueProblem));
            }
        }
    }

    private static void validateAnnotations(ObjectNode object, List<FieldError> errors) {
        JsonNode annotations = Json.at(object, "metadata", "annotations");
        if (!annotations.isObject()) {
            return;
        }
        long size = 0;
        for (Map.Entry<String, JsonNode> entry : annotations.properties()) {
            String keyProblem = LabelSyntax.keyProblem(entry.getKey().toLowerCase(java.util.Locale.ROOT));
            if (keyProblem != null) {
                errors.add(new FieldError(Type.INVALID, "metadata.annotations", StringNode.valueOf(entry.getKey()),
                        keyProblem));
            }
            size += entry.getKey().getBytes(StandardCharsets.UTF_8).length
                    + entry.getValue().asString().getBytes(StandardCharsets.UTF_8).length;
        }
        if (size > ANNOTATIONS_MAX_BYTES) {
            errors.add(new FieldError(Type.TOO_LONG, "metadata.annotations", null,
                    "may not be more than " + ANNOTATIONS_MAX_BYTES + " bytes"));
        }
    }
}
