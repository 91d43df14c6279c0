package io.kdra.apiserver.resource;

import io.kdra.apiserver.validation.ExpressionChecker;
import io.kdra.apiserver.validation.FieldError;
import io.kdra.apiserver.validation.ObjectValidator;
import java.util.List;
import tools.jackson.databind.node.ObjectNode;

/**
 * ResourceClaim ({@code ValidateResourceClaim}, {@code ...Update}, {@code ...StatusUpdate}). The spec is checked on
 * create and is immutable afterwards; status writes are checked against the claim's own requests.
 */
final class ResourceClaimValidator implements ObjectValidator {

    private final ExpressionChecker expressions;

    ResourceClaimValidator(ExpressionChecker expressions) {
        this.expressions = expressions;
    }

    @Override
    public List<FieldError> validateCreate(ObjectNode object) {
        ValidationRun run = new ValidationRun(expressions);
        FieldPath specPath = FieldPath.ROOT.child("spec");
        ObjectNode spec = run.object(object, "spec", FieldPath.ROOT);
        DeviceClaimChecks.deviceClaim(run, run.object(spec, "devices", specPath), specPath.child("devices"));
        return run.errors();
    }

    @Override
    public List<FieldError> validateUpdate(ObjectNode object, ObjectNode old) {
        return immutableSpec(expressions, object, old);
    }

    @Override
    public List<FieldError> validateStatusUpdate(ObjectNode object, ObjectNode old) {
        ValidationRun run = new ValidationRun(expressions);
        ObjectNode status = JsonNodes.objectOrEmpty(run.object(object, "status", FieldPath.ROOT));
        ObjectNode oldStatus = JsonNodes.objectOrEmpty(old.get("status"));
        RequestNames requestNames = RequestNames.of(JsonNodes.get(object.get("spec"), "devices"));
        boolean deleted = ValidationRun.present(object.get("metadata"), "deletionTimestamp") != null;
        ClaimStatusChecks.status(run, status, oldStatus, requestNames, deleted);
        return run.errors();
    }

    /** Only immutability is checked on update: the other errors could not be fixed by the user anyway. */
    static List<FieldError> immutableSpec(ExpressionChecker expressions, ObjectNode object, ObjectNode old) {
        ValidationRun run = new ValidationRun(expressions);
        if (!JsonNodes.semanticEquals(object.get("spec"), old.get("spec"))) {
            run.add(FieldErrors.invalid(FieldPath.ROOT.child("spec"), object.get("spec"), "field is immutable"));
        }
        return run.errors();
    }
}
