package io.kdra.apiserver.scheduling;

import io.kdra.apiserver.api.FieldError;
import io.kdra.apiserver.api.ObjectValidator;
import io.kdra.apiserver.validation.Names;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * PodGroup ({@code scheduling.k8s.io/v1beta1}): one scheduling policy, an optional reference to the Workload template
 * it was made from, at most four resource claims; the spec is immutable except a gang's {@code minCount}. Its status
 * names, for each claim made from a template, the ResourceClaim generated for the group.
 */
final class PodGroupValidator implements ObjectValidator {

    @Override
    public List<FieldError> validateCreate(ObjectNode podGroup) {
        GroupChecks checks = new GroupChecks();
        JsonNode spec = podGroup.get("spec");
        if (GroupChecks.present(spec, "parentCompositePodGroupName")) {
            checks.forbidden("spec.parentCompositePodGroupName", "disabled by feature-gate CompositePodGroup");
        }
        JsonNode workloadRef = spec == null ? null : spec.get("workloadRef");
        if (workloadRef != null && !workloadRef.isNull()) {
            checks.name(workloadRef, "workloadName", "spec.workloadRef.workloadName", Names::dnsSubdomain);
            checks.name(workloadRef, "templateName", "spec.workloadRef.templateName", Names::dnsLabel);
        }
        checks.schedulingPolicy(spec == null ? null : spec.get("schedulingPolicy"), "spec.schedulingPolicy");
        checks.resourceClaims(spec == null ? null : spec.get("resourceClaims"), "spec.resourceClaims");
        return checks.errors();
    }

    @Override
    public List<FieldError> validateUpdate(ObjectNode podGroup, ObjectNode old) {
        List<FieldError> errors = validateCreate(podGroup);
        if (!errors.isEmpty()) {
            return errors;
        }
        GroupChecks checks = new GroupChecks();
        JsonNode spec = podGroup.get("spec");
        if (!Objects.equals(GroupChecks.withoutMinCount(spec), GroupChecks.withoutMinCount(old.get("spec")))) {
            checks.immutable("spec", spec);
        }
        return checks.errors();
    }

    /**
     * {@code resourceClaimStatuses}: at most four, unique names, each naming a claim of the spec; a generated claim's
     * name is a DNS subdomain.
     */
    @Override
    public List<FieldError> validateStatusUpdate(ObjectNode podGroup, ObjectNode old) {
        GroupChecks checks = new GroupChecks();
        JsonNode statuses = podGroup.at("/status/resourceClaimStatuses");
        if (!statuses.isArray()) {
            return checks.errors();
        }
        String path = "status.resourceClaimStatuses";
        if (statuses.size() > GroupChecks.MAX_RESOURCE_CLAIMS) {
            checks.tooMany(path, statuses.size(), GroupChecks.MAX_RESOURCE_CLAIMS);
        }
        Set<String> specClaims = new HashSet<>();
        for (JsonNode claim : podGroup.at("/spec/resourceClaims")) {
            specClaims.add(GroupChecks.text(claim, "name"));
        }
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < statuses.size(); i++) {
            JsonNode status = statuses.get(i);
            String at = path + "[" + i + "]";
            String name = GroupChecks.text(status, "name");
            if (name.isEmpty()) {
                checks.required(at + ".name", "");
            } else if (!seen.add(name)) {
                checks.add(new FieldError(FieldError.Type.DUPLICATE, at + ".name",
                        JsonNodeFactory.instance.stringNode(name), ""));
            } else if (!specClaims.contains(name)) {
                checks.invalid(at + ".name", status.get("name"), "must match the name of an entry in "
                        + "`spec.resourceClaims`");
            }
            if (GroupChecks.present(status, "resourceClaimName")) {
                checks.format(GroupChecks.text(status, "resourceClaimName"), at + ".resourceClaimName",
                        Names::dnsSubdomain);
            }
        }
        return checks.errors();
    }
}
