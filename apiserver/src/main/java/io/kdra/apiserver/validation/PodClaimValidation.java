package io.kdra.apiserver.validation;

import io.kdra.apiserver.api.ObjectValidator;
import io.kdra.apiserver.api.FieldError;
import io.kdra.apiserver.json.Json;
import io.kdra.apiserver.api.FieldError.Type;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.databind.node.StringNode;

/**
 * The pod's resource-claim references, validated as kube-apiserver does: {@code spec.resourceClaims} entries have
 * unique DNS-label names and exactly one of {@code resourceClaimName} and {@code resourceClaimTemplateName}, and
 * every container claim names one of them; the list is immutable.
 */
public final class PodClaimValidation implements ObjectValidator {

    private static final List<String> CONTAINER_LISTS = List.of("initContainers", "containers", "ephemeralContainers");

    @Override
    public List<FieldError> validateCreate(ObjectNode pod) {
        List<FieldError> errors = new ArrayList<>();
        Set<String> claimNames = validatePodClaims(Json.at(pod, "spec", "resourceClaims"), errors);
        for (String list : CONTAINER_LISTS) {
            JsonNode containers = Json.at(pod, "spec", list);
            for (int i = 0; i < containers.size(); i++) {
                validateContainerClaims(Json.at(containers.get(i), "resources", "claims"), claimNames,
                        "spec." + list + "[" + i + "].resources.claims", errors);
            }
        }
        return errors;
    }

    @Override
    public List<FieldError> validateUpdate(ObjectNode pod, ObjectNode old) {
        List<FieldError> errors = validateCreate(pod);
        JsonNode claims = Json.at(pod, "spec", "resourceClaims");
        JsonNode oldClaims = Json.at(old, "spec", "resourceClaims");
        if (!Json.isEmpty(claims) || !Json.isEmpty(oldClaims)) {
            if (!claims.equals(oldClaims)) {
                errors.add(new FieldError(Type.INVALID, "spec.resourceClaims", claims, "field is immutable"));
            }
        }
        return errors;
    }

    private static Set<String> validatePodClaims(JsonNode claims, List<FieldError> errors) {
        Set<String> names = new TreeSet<>();
        for (int i = 0; i < claims.size(); i++) {
            JsonNode claim = claims.get(i);
            String path = "spec.resourceClaims[" + i + "]";
            String name = Json.text(claim, "name");
            if (name == null || name.isEmpty()) {
                errors.add(new FieldError(Type.REQUIRED, path + ".name", null, ""));
            } else if (names.contains(name)) {
                errors.add(new FieldError(Type.DUPLICATE, path + ".name", StringNode.valueOf(name), null));
            } else {
                for (String problem : Names.dnsLabel(name)) {
                    errors.add(new FieldError(Type.INVALID, path + ".name", StringNode.valueOf(name), problem));
                }
                names.add(name);
            }
            String claimName = Json.text(claim, "resourceClaimName");
            String templateName = Json.text(claim, "resourceClaimTemplateName");
            if (claimName != null && templateName != null) {
                errors.add(new FieldError(Type.INVALID, path, claim,
                        "at most one of `resourceClaimName` or `resourceClaimTemplateName` may be specified"));
            }
            if (claimName == null && templateName == null) {
                errors.add(new FieldError(Type.INVALID, path, claim,
                        "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`"));
            }
            validateReferencedName(claimName, path + ".resourceClaimName", errors);
            validateReferencedName(templateName, path + ".resourceClaimTemplateName", errors);
        }
        return names;
    }

    private static void validateReferencedName(String name, String path, List<FieldError> errors) {
        if (name == null) {
            return;
        }
        for (String problem : Names.dnsSubdomain(name)) {
            errors.add(new FieldError(Type.INVALID, path, StringNode.valueOf(name), problem));
        }
    }

    private static void validateContainerClaims(JsonNode claims, Set<String> podClaimNames, String path,
            List<FieldError> errors) {
        Set<String> seen = new LinkedHashSet<>();
        for (int i = 0; i < claims.size(); i++) {
            String itemPath = path + "[" + i + "]";
            String name = Json.text(claims.get(i), "name");
            if (name == null || name.isEmpty()) {
                errors.add(new FieldError(Type.REQUIRED, itemPath, null, ""));
                continue;
            }
            String key = name;
            String request = Json.text(claims.get(i), "request");
            if (request != null && !request.isEmpty()) {
                for (String problem : Names.dnsLabel(request)) {
                    errors.add(new FieldError(Type.INVALID, itemPath + ".request", StringNode.valueOf(request), problem));
                }
                key += "/" + request;
            }
            if (!seen.add(key)) {
                errors.add(new FieldError(Type.DUPLICATE, itemPath, StringNode.valueOf(key), null));
            }
            if (!podClaimNames.contains(name)) {
                String detail = "must be one of the names in pod.spec.resourceClaims"
                        + (podClaimNames.isEmpty() ? " which is empty" : ": " + String.join(", ", podClaimNames));
                errors.add(new FieldError(Type.NOT_FOUND, itemPath, StringNode.valueOf(name), detail));
            }
        }
    }
}
