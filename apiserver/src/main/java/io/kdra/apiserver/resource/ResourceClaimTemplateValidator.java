package io.kdra.apiserver.resource;

import io.kdra.apiserver.api.FieldError;
import io.kdra.kube.ExpressionChecker;
import java.util.List;
import tools.jackson.databind.node.ObjectNode;

/**
 * ResourceClaimTemplate ({@code ValidateResourceClaimTemplate}, {@code ...Update}): the template's metadata may only
 * hold labels and annotations, its claim spec is checked as a claim's, and the whole spec is immutable.
 */
final class ResourceClaimTemplateValidator extends KindValidator {

    ResourceClaimTemplateValidator(ExpressionChecker expressions) {
        super(expressions);
    }

    @Override
    void check(ValidationRun run, ObjectNode object, ObjectNode old) {
        FieldPath specPath = FieldPath.ROOT.child("spec");
        ObjectNode spec = run.object(object, "spec", FieldPath.ROOT);
        ObjectNode metadata = run.object(spec, "metadata", specPath);
        if (metadata != null) {
            TemplateMetadataChecks.templateMetadata(run, metadata, specPath.child("metadata"));
        }
        FieldPath claimSpecPath = specPath.child("spec");
        ObjectNode claimSpec = run.object(spec, "spec", specPath);
        DeviceClaimChecks.deviceClaim(run, run.object(claimSpec, "devices", claimSpecPath),
                claimSpecPath.child("devices"));
    }

    @Override
    public List<FieldError> validateUpdate(ObjectNode object, ObjectNode old) {
        return immutableSpec(object, old);
    }
}
