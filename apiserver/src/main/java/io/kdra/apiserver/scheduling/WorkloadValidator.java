package io.kdra.apiserver.scheduling;

import io.kdra.apiserver.api.FieldError;
import io.kdra.apiserver.api.ObjectValidator;
import io.kdra.apiserver.validation.Names;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Workload ({@code scheduling.k8s.io/v1beta1}): one to eight pod group templates with unique DNS-label names, each
 * with one scheduling policy and at most four resource claims; an optional controller reference. Composite pod
 * group templates need the CompositePodGroup gate, which kdra does not know: they are forbidden. On update, no
 * template may be added or removed and a template may change only its gang's {@code minCount}.
 */
final class WorkloadValidator implements ObjectValidator {

    /** {@code WorkloadMaxPodGroupTemplates}. */
    static final int MAX_TEMPLATES = 8;

    @Override
    public List<FieldError> validateCreate(ObjectNode workload) {
        GroupChecks checks = new GroupChecks();
        JsonNode spec = workload.get("spec");
        if (GroupChecks.present(spec, "compositePodGroupTemplates")) {
            checks.forbidden("spec.compositePodGroupTemplates", "disabled by feature-gate CompositePodGroup");
        }
        JsonNode templates = spec == null ? null : spec.get("podGroupTemplates");
        if (templates == null || !templates.isArray() || templates.isEmpty()) {
            checks.required("spec.podGroupTemplates", "must have at least one item");
        } else {
            if (templates.size() > MAX_TEMPLATES) {
                checks.tooMany("spec.podGroupTemplates", templates.size(), MAX_TEMPLATES);
            }
            Set<String> names = new HashSet<>();
            for (int i = 0; i < templates.size(); i++) {
                JsonNode template = templates.get(i);
                String path = "spec.podGroupTemplates[" + i + "]";
                checks.name(template, "name", path + ".name", Names::dnsLabel);
                String name = GroupChecks.text(template, "name");
                if (!name.isEmpty() && !names.add(name)) {
                    checks.add(new FieldError(FieldError.Type.DUPLICATE, path + ".name", template.get("name"), ""));
                }
                checks.schedulingPolicy(template.get("schedulingPolicy"), path + ".schedulingPolicy");
                checks.resourceClaims(template.get("resourceClaims"), path + ".resourceClaims");
            }
        }
        JsonNode controllerRef = spec == null ? null : spec.get("controllerRef");
        if (controllerRef != null && !controllerRef.isNull()) {
            checks.name(controllerRef, "kind", "spec.controllerRef.kind", Names::pathSegment);
            checks.name(controllerRef, "name", "spec.controllerRef.name", Names::pathSegment);
            if (GroupChecks.present(controllerRef, "apiGroup")) {
                checks.format(GroupChecks.text(controllerRef, "apiGroup"), "spec.controllerRef.apiGroup",
                        Names::dnsSubdomain);
            }
        }
        return checks.errors();
    }

    @Override
    public List<FieldError> validateUpdate(ObjectNode workload, ObjectNode old) {
        List<FieldError> errors = validateCreate(workload);
        if (!errors.isEmpty()) {
            return errors;
        }
        GroupChecks checks = new GroupChecks();
        JsonNode spec = workload.get("spec");
        JsonNode oldSpec = old.get("spec");
        if (!Objects.equals(spec.get("controllerRef"), oldSpec.get("controllerRef"))) {
            checks.immutable("spec.controllerRef", spec.get("controllerRef"));
        }
        Map<String, JsonNode> oldTemplates = byName(oldSpec.get("podGroupTemplates"));
        Map<String, JsonNode> templates = byName(spec.get("podGroupTemplates"));
        if (!oldTemplates.keySet().equals(templates.keySet())) {
            checks.forbidden("spec.podGroupTemplates", "pod group templates may not be added or removed");
            return checks.errors();
        }
        JsonNode list = spec.get("podGroupTemplates");
        for (int i = 0; i < list.size(); i++) {
            JsonNode template = list.get(i);
            JsonNode before = oldTemplates.get(GroupChecks.text(template, "name"));
            if (!Objects.equals(GroupChecks.withoutMinCount(template), GroupChecks.withoutMinCount(before))) {
                checks.immutable("spec.podGroupTemplates[" + i + "]", template);
            }
        }
        return checks.errors();
    }

    private static Map<String, JsonNode> byName(JsonNode templates) {
        Map<String, JsonNode> byName = new HashMap<>();
        if (templates != null && templates.isArray()) {
            for (JsonNode template : templates) {
                byName.put(GroupChecks.text(template, "name"), template);
            }
        }
        return byName;
    }
}
