package io.kdra.apiserver.validation;

import io.kdra.apiserver.api.ObjectValidator;
import io.kdra.apiserver.api.FieldError;
import io.kdra.apiserver.json.Json;
import io.kdra.apiserver.api.FieldError.Type;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.LongNode;
import tools.jackson.databind.node.NullNode;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.databind.node.StringNode;

/**
 * The spec changes kube-apiserver lets an update of a pod make (its ValidatePodUpdate): container and init container
 * images, {@code activeDeadlineSeconds} set or lowered, tolerations added, scheduling gates removed, a negative
 * termination grace period set to 1, and, while the pod is gated, node selector entries and required node affinity
 * expressions added. Anything else in the spec, {@code nodeName} included (set through {@code pods/binding}), is
 * forbidden; metadata is free, status is written through {@code /status}.
 *
 * <p>Specs are compared as JSON, with absent, null, false, zero-length and empty values alike. That is close to how Go
 * compares them but more lenient for optional booleans (Go tells {@code false} from unset there) and stricter for
 * quantities written differently ({@code "1"} and {@code "1000m"}). Upstream appends a diff of the two specs (Go
 * syntax) to the message; this server does not.
 */
public final class PodUpdateValidation implements ObjectValidator {

    static final String FORBIDDEN_CHANGE = "pod updates may not change fields other than "
            + String.join(",", "`spec.containers[*].image`", "`spec.initContainers[*].image`",
                    "`spec.activeDeadlineSeconds`", "`spec.tolerations` (only additions to existing tolerations)",
                    "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)");

    private static final long MAX_INT32 = Integer.MAX_VALUE;

    @Override
    public List<FieldError> validateCreate(ObjectNode pod) {
        return List.of();
    }

    @Override
    public List<FieldError> validateUpdate(ObjectNode pod, ObjectNode old) {
        ObjectNode spec = specOf(pod);
        ObjectNode oldSpec = specOf(old);
        List<FieldError> errors = new ArrayList<>();
        for (String list : List.of("containers", "initContainers")) {
            if (!validateContainers(spec.path(list), oldSpec.path(list), "spec." + list, errors)) {
                return errors;
            }
        }
        if (!validateActiveDeadline(spec.get("activeDeadlineSeconds"), oldSpec.get("activeDeadlineSeconds"), errors)) {
            return errors;
        }
        validateOnlyAddedTolerations(spec.path("tolerations"), oldSpec.path("tolerations"), errors);
        validateOnlyDeletedSchedulingGates(spec.path("schedulingGates"), oldSpec.path("schedulingGates"), errors);
        if (spec.equals(oldSpec)) {
            return errors;
        }

        ObjectNode munged = spec.deepCopy();
        for (String list : List.of("containers", "initContainers")) {
            JsonNode containers = munged.path(list);
            for (int i = 0; i < containers.size(); i++) {
                if (containers.get(i) instanceof ObjectNode container) {
                    copyField(oldSpec.path(list).get(i), container, "image");
                }
            }
        }
        copyField(oldSpec, munged, "activeDeadlineSeconds");
        copyField(oldSpec, munged, "schedulingGates");
        copyField(oldSpec, munged, "tolerations");
        JsonNode oldGrace = oldSpec.path("terminationGracePeriodSeconds");
        if (oldGrace.isIntegralNumber() && oldGrace.asLong() < 0
                && munged.path("terminationGracePeriodSeconds").asLong(0) == 1) {
            munged.set("terminationGracePeriodSeconds", oldGrace.deepCopy());
        }
        if (!Json.isEmpty(oldSpec.get("schedulingGates"))) {
            mungeGatedPodNodeSelection(munged, oldSpec, errors);
        }
        if (!normalized(munged).equals(normalized(oldSpec))) {
            errors.add(new FieldError(Type.FORBIDDEN, "spec", null, FORBIDDEN_CHANGE));
        }
        return errors;
    }

    private static ObjectNode specOf(ObjectNode pod) {
        return pod.get("spec") instanceof ObjectNode spec ? spec : Json.object();
    }

    /** @return false when the lists differ in length, which ends the validation as upstream does */
    private static boolean validateContainers(JsonNode containers, JsonNode oldContainers, String path,
            List<FieldError> errors) {
        if (containers.size() != oldContainers.size()) {
            errors.add(new FieldError(Type.FORBIDDEN, path, null, "pod updates may not add or remove containers"));
            return false;
        }
        for (int i = 0; i < containers.size(); i++) {
            String image = Json.text(containers.get(i), "image");
            String imagePath = path + "[" + i + "].image";
            if (image == null || image.isEmpty()) {
                errors.add(new FieldError(Type.REQUIRED, imagePath, null, ""));
            } else if (!image.strip().equals(image)) {
                errors.add(new FieldError(Type.INVALID, imagePath, StringNode.valueOf(image),
                        "must not have leading or trailing whitespace"));
            }
        }
        return true;
    }

    /**
     * {@code activeDeadlineSeconds} may be set where it was not, or lowered; never raised or removed.
     *
     * @return false when the value is out of range or raised, which ends the validation as upstream does
     */
    private static boolean validateActiveDeadline(JsonNode deadline, JsonNode oldDeadline, List<FieldError> errors) {
        String path = "spec.activeDeadlineSeconds";
        boolean set = deadline != null && !deadline.isNull();
        boolean oldSet = oldDeadline != null && !oldDeadline.isNull();
        if (set) {
            long value = deadline.asLong();
            if (value < 0 || value > MAX_INT32) {
                errors.add(new FieldError(Type.INVALID, path, LongNode.valueOf(value),
                        "must be between 0 and " + MAX_INT32 + ", inclusive"));
                return false;
            }
            if (oldSet && oldDeadline.asLong() < value) {
                errors.add(new FieldError(Type.INVALID, path, LongNode.valueOf(value),
                        "must be less than or equal to previous value"));
                return false;
            }
        } else if (oldSet) {
            errors.add(new FieldError(Type.INVALID, path, NullNode.getInstance(),
                    "must not update from a positive integer to nil value"));
        }
        return true;
    }

    /** Every existing toleration must stay, but for its {@code tolerationSeconds}. */
    private static void validateOnlyAddedTolerations(JsonNode tolerations, JsonNode oldTolerations,
            List<FieldError> errors) {
        Set<JsonNode> kept = new HashSet<>();
        for (JsonNode toleration : tolerations) {
            kept.add(withoutSeconds(toleration));
        }
        for (JsonNode old : oldTolerations) {
            if (!kept.contains(withoutSeconds(old))) {
                errors.add(new FieldError(Type.FORBIDDEN, "spec.tolerations", null,
                        "existing toleration can not be modified except its tolerationSeconds"));
                return;
            }
        }
    }

    private static JsonNode withoutSeconds(JsonNode toleration) {
        JsonNode copy = normalized(toleration);
        if (copy instanceof ObjectNode object) {
            object.remove("tolerationSeconds");
        }
        return copy;
    }

    private static void validateOnlyDeletedSchedulingGates(JsonNode gates, JsonNode oldGates,
            List<FieldError> errors) {
        Set<String> existing = new HashSet<>();
        oldGates.forEach(gate -> existing.add(gate.path("name").asString("")));
        for (int i = 0; i < gates.size(); i++) {
            String name = gates.get(i).path("name").asString("");
            if (!existing.contains(name)) {
                errors.add(new FieldError(Type.FORBIDDEN, "spec.schedulingGates[" + i + "].name", null,
                        "only deletion is allowed, but found new scheduling gate '" + name + "'"));
            }
        }
    }

    /**
     * A gated pod may gain node selector entries and required node affinity expressions (appended to its existing
     * terms), and change its preferred node affinity; those changes are checked here and then taken out of the
     * comparison of the specs.
     */
    private static void mungeGatedPodNodeSelection(ObjectNode munged, ObjectNode oldSpec, List<FieldError> errors) {
        JsonNode selector = munged.path("nodeSelector");
        Map<String, String> newSelector = Json.stringMap(munged, "nodeSelector");
        for (Map.Entry<String, String> entry : Json.stringMap(oldSpec, "nodeSelector").entrySet()) {
            if (!entry.getValue().equals(newSelector.get(entry.getKey()))) {
                errors.add(new FieldError(Type.INVALID, "spec.nodeSelector", selector.isMissingNode() ? null : selector,
                        "only additions to spec.nodeSelector are allowed (no mutations or deletions)"));
                break;
            }
        }
        copyField(oldSpec, munged, "nodeSelector");

        String[] termsAt = {"affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution",
            "nodeSelectorTerms"};
        JsonNode oldTerms = Json.at(oldSpec, termsAt);
        JsonNode terms = Json.at(munged, termsAt);
        String termsPath = "spec." + String.join(".", termsAt);
        if (oldTerms.size() > 0) {
            if (oldTerms.size() != terms.size()) {
                errors.add(new FieldError(Type.INVALID, termsPath, terms.isMissingNode() ? null : terms,
                        "no additions/deletions to non-empty NodeSelectorTerms list are allowed"));
            } else {
                for (int i = 0; i < oldTerms.size(); i++) {
                    if (!onlyAdditions(terms.get(i), oldTerms.get(i))) {
                        errors.add(new FieldError(Type.INVALID, termsPath + "[" + i + "]", terms.get(i),
                                "only additions are allowed (no mutations or deletions)"));
                    }
                }
            }
        }
        JsonNode oldNodeAffinity = Json.at(oldSpec, "affinity", "nodeAffinity");
        if (munged.get("affinity") instanceof ObjectNode affinity) {
            if (oldNodeAffinity.isMissingNode()) {
                affinity.remove("nodeAffinity");
            } else {
                affinity.set("nodeAffinity", oldNodeAffinity.deepCopy());
            }
        } else if (!oldNodeAffinity.isMissingNode()) {
            munged.putObject("affinity").set("nodeAffinity", oldNodeAffinity.deepCopy());
        }
    }

    /**
     * @return whether the term keeps the old term's expressions and fields, in order, and only appends to them; an
     *     empty term (which selects no node) stays empty
     */
    private static boolean onlyAdditions(JsonNode term, JsonNode oldTerm) {
        boolean oldEmpty = Json.isEmpty(oldTerm.get("matchExpressions")) && Json.isEmpty(oldTerm.get("matchFields"));
        boolean empty = Json.isEmpty(term.get("matchExpressions")) && Json.isEmpty(term.get("matchFields"));
        if (oldEmpty && !empty) {
            return false;
        }
        for (String list : List.of("matchExpressions", "matchFields")) {
            JsonNode items = term.path(list);
            JsonNode oldItems = oldTerm.path(list);
            if (oldItems.size() > items.size()) {
                return false;
            }
            for (int i = 0; i < oldItems.size(); i++) {
                if (!normalized(items.get(i)).equals(normalized(oldItems.get(i)))) {
                    return false;
                }
            }
        }
        return true;
    }

    private static void copyField(JsonNode from, ObjectNode to, String field) {
        JsonNode value = from == null ? null : from.get(field);
        if (value == null) {
            to.remove(field);
        } else {
            to.set(field, value.deepCopy());
        }
    }

    /** A copy without the values Go would decode as unset or zero: null, false, "", empty lists and objects. */
    private static JsonNode normalized(JsonNode node) {
        if (node.isObject()) {
            ObjectNode copy = Json.object();
            for (Map.Entry<String, JsonNode> entry : node.properties()) {
                JsonNode value = normalized(entry.getValue());
                if (!isZero(value)) {
                    copy.set(entry.getKey(), value);
                }
            }
            return copy;
        }
        if (node.isArray()) {
            ArrayNode copy = Json.array();
            node.forEach(item -> copy.add(normalized(item)));
            return copy;
        }
        return node;
    }

    private static boolean isZero(JsonNode value) {
        return Json.isEmpty(value) || (value.isBoolean() && !value.booleanValue());
    }
}
