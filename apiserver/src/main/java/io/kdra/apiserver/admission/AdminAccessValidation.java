package io.kdra.apiserver.admission;

import io.kdra.apiserver.api.ObjectValidator;
import io.kdra.apiserver.api.FieldError;
import io.kdra.apiserver.json.Json;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Admin access to devices is only for namespaces labelled {@code resource.kubernetes.io/admin-access: "true"}: a
 * claim or template requesting it elsewhere, or a status granting it, is invalid (as in kube-apiserver's resource
 * strategies, the error joins the 422 of the object's validation).
 */
public final class AdminAccessValidation implements ObjectValidator {

    public static final String NAMESPACE_LABEL = "resource.kubernetes.io/admin-access";
    private static final String MESSAGE =
            "admin access to devices requires the `" + NAMESPACE_LABEL + ": true` label on the containing namespace";

    private final Function<String, Map<String, String>> namespaceLabels;
    private final boolean template;

    /**
     * @param namespaceLabels the labels of a namespace by name (empty when it does not exist)
     * @param template whether the objects are ResourceClaimTemplates (their claim spec is under spec.spec)
     */
    public AdminAccessValidation(Function<String, Map<String, String>> namespaceLabels, boolean template) {
        this.namespaceLabels = namespaceLabels;
        this.template = template;
    }

    @Override
    public List<FieldError> validateCreate(ObjectNode object) {
        JsonNode requests = template ? Json.at(object, "spec", "spec", "devices", "requests")
                : Json.at(object, "spec", "devices", "requests");
        // a list of the wrong type is the kind validator's error; here it holds no requests
        for (int i = 0; requests.isArray() && i < requests.size(); i++) {
            if (Json.at(requests.get(i), "exactly", "adminAccess").asBoolean(false)) {
                return check(object, "spec.devices.requests[" + i + "].adminAccess");
            }
        }
        return List.of();
    }

    @Override
    public List<FieldError> validateUpdate(ObjectNode object, ObjectNode old) {
        return List.of();
    }

    @Override
    public List<FieldError> validateStatusUpdate(ObjectNode object, ObjectNode old) {
        if (template || grantedIndex(old) >= 0) {
            return List.of();
        }
        int index = grantedIndex(object);
        return index < 0 ? List.of()
                : check(object, "status.allocation.devices.results[" + index + "].adminAccess");
    }

    private static int grantedIndex(JsonNode claim) {
        JsonNode results = Json.at(claim, "status", "allocation", "devices", "results");
        for (int i = 0; results.isArray() && i < results.size(); i++) {
            if (results.get(i).path("adminAccess").asBoolean(false)) {
                return i;
            }
        }
        return -1;
    }

    private List<FieldError> check(ObjectNode object, String field) {
        String namespace = Json.text(object, "metadata", "namespace");
        if ("true".equals(namespaceLabels.apply(namespace).get(NAMESPACE_LABEL))) {
            return List.of();
        }
        return List.of(new FieldError(FieldError.Type.FORBIDDEN, field, null, MESSAGE));
    }
}
